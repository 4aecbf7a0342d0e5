package dev.felix.server.protocol;

import dev.felix.core.broker.Broker;
import dev.felix.server.auth.Authenticator;
import dev.felix.server.config.BrokerConfig;
import dev.felix.server.metrics.BrokerMetrics;
import dev.felix.wire.Capabilities;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What every connection and stream handler of one broker shares. Thread-safe.
 *
 * <p><b>Threads and buffers.</b> Thread-safe: shared by every event loop and by the shutdown path; its sets of
 * connections and subscriptions are concurrent and {@code draining} is volatile. Touches no {@code ByteBuf}s itself;
 * its {@link PayloadBlocks} hold the pooled payloads' memory.
 */
public final class ServerContext {

    /** Capabilities a broker that is not clustered advertises in {@code auth_ok}. */
    public static final int SERVER_FLAGS = Capabilities.ALL & ~Capabilities.CLUSTER;
    /** Shard subscriptions one connection may hold. */
    public static final int MAX_SUBSCRIPTIONS_PER_CONNECTION = 4096;

    final Broker broker;
    final BrokerConfig config;
    final Authenticator authenticator;
    final BrokerMetrics metrics;
    final Set<LiveSubscription> subscriptions = ConcurrentHashMap.newKeySet();
    final Set<ConnectionHandler> connections = ConcurrentHashMap.newKeySet();
    /** This node's view of the cluster, or null for a single node. */
    final dev.felix.cluster.ClusterView cluster;
    /** This node's shard replication (progress of the shards it leads), or null for a single node. */
    final dev.felix.cluster.replication.Replication replication;
    /** Serves subscribes for shards led elsewhere ({@code cluster_relay_subscribe}), or null. */
    final RelayedShards relayed;
    /** The memory of pooled payloads ({@code pooled_payloads}); closed by the server once its event loops stopped. */
    final PayloadBlocks payloadBlocks = new PayloadBlocks();
    private volatile boolean draining;

    public ServerContext(Broker broker, BrokerConfig config, Authenticator authenticator, BrokerMetrics metrics) {
        this(broker, config, authenticator, metrics, null, null, null);
    }

    /** A member of a cluster ({@code cluster} non-null) or a single node. */
    public ServerContext(Broker broker, BrokerConfig config, Authenticator authenticator, BrokerMetrics metrics,
            dev.felix.cluster.ClusterView cluster, dev.felix.cluster.replication.Replication replication) {
        this(broker, config, authenticator, metrics, cluster, replication, null);
    }

    /** A member of a cluster that relays subscribes of shards other nodes lead ({@code relayed} non-null). */
    public ServerContext(Broker broker, BrokerConfig config, Authenticator authenticator, BrokerMetrics metrics,
            dev.felix.cluster.ClusterView cluster, dev.felix.cluster.replication.Replication replication,
            RelayedShards relayed) {
        this.relayed = relayed;
        this.replication = replication;
        this.broker = broker;
        this.config = config;
        this.authenticator = authenticator;
        this.metrics = metrics;
        this.cluster = cluster;
    }

    /**
     * Capabilities this broker advertises in {@code auth_ok}, both words ({@link Capabilities#combine}):
     * {@code CLUSTER} only when clustered.
     */
    public int serverFlags() {
        return Capabilities.combine(cluster == null ? SERVER_FLAGS : Capabilities.ALL, Capabilities.EXT_ALL);
    }

    /** The memory of pooled payloads: its server closes it, trims it when idle and reports its size. */
    public PayloadBlocks payloadBlocks() {
        return payloadBlocks;
    }

    /** New connections are refused and new publishes answered {@code unavailable}. */
    public void startDraining() {
        draining = true;
    }

    public boolean draining() {
        return draining;
    }

    public int connectionCount() {
        return connections.size();
    }

    public int subscriptionCount() {
        return subscriptions.size();
    }

    /** Events queued for all subscribers of this broker. */
    public long subscriberQueueEvents() {
        long total = 0;
        for (LiveSubscription w : subscriptions) {
            total += w.queuedEvents();
        }
        return total;
    }

    /** How long connections stay open after their subscriptions' end frames were written, at shutdown. */
    static final long END_FRAMES_SETTLE_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(100);

    /**
     * Ends every subscription with {@code unavailable} and {@code reason} on its event stream (after the
     * events already queued for it), then closes every connection with application code 0 and the
     * given reason, and waits (up to {@code timeoutMillis} in all) until they are closed, so the
     * CONNECTION_CLOSE frames leave before the listener stops.
     *
     * <p>Why both: a subscriber learns the reason from its event stream, whose data QUIC retransmits
     * until it is acknowledged, while the single CONNECTION_CLOSE datagram is not retransmitted once
     * the connection is gone and was seen to get lost under load (the client then only notices at its
     * idle timeout, with no reason). The event streams' end frames get {@link #END_FRAMES_SETTLE_NANOS}
     * (within the first half of the time) before the connections close, so that a lost one is sent again:
     * both were seen lost together in {@code ServerProcessTest}.
     */
    public void closeConnections(String reason, long timeoutMillis) {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        dev.felix.core.FelixError ending = dev.felix.core.FelixError.of(dev.felix.core.ErrorCode.UNAVAILABLE, reason);
        java.util.List<LiveSubscription> ended = java.util.List.copyOf(subscriptions);
        for (LiveSubscription w : ended) {
            w.onEnd(ending);
        }
        // The subscriptions' last frames are written on their event loops; give them half the time.
        long half = System.nanoTime() + timeoutMillis * 500_000;
        while (!subscriptions.isEmpty() && System.nanoTime() < half) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // shutdown path only
        }
        if (!ended.isEmpty()) {
            // Written is not delivered: keep the connections open a moment so that QUIC can retransmit an end frame
            // that was lost (a subscriber's socket that overflowed under the last deliveries). Its loss timeout on
            // loopback is a few milliseconds; once a connection is closed, nothing of it is sent again.
            long settled = Math.min(half, System.nanoTime() + END_FRAMES_SETTLE_NANOS);
            while (System.nanoTime() < settled) {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // shutdown path only
            }
        }
        java.util.List<io.netty.util.concurrent.Future<?>> closing = new java.util.ArrayList<>();
        for (ConnectionHandler c : connections) {
            closing.add(c.close(reason));
        }
        for (io.netty.util.concurrent.Future<?> f : closing) {
            f.awaitUninterruptibly(Math.max(0, (deadline - System.nanoTime()) / 1_000_000));
        }
    }
}
