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
 */
public final class ServerContext {

    /** Capabilities this broker advertises in {@code auth_ok}. */
    public static final int SERVER_FLAGS = Capabilities.ALL & ~Capabilities.CLUSTER;
    /** Shard subscriptions one connection may hold. */
    public static final int MAX_SUBSCRIPTIONS_PER_CONNECTION = 4096;

    final Broker broker;
    final BrokerConfig config;
    final Authenticator authenticator;
    final BrokerMetrics metrics;
    final Set<LiveSubscription> subscriptions = ConcurrentHashMap.newKeySet();
    final Set<ConnectionHandler> connections = ConcurrentHashMap.newKeySet();
    private volatile boolean draining;

    public ServerContext(Broker broker, BrokerConfig config, Authenticator authenticator, BrokerMetrics metrics) {
        this.broker = broker;
        this.config = config;
        this.authenticator = authenticator;
        this.metrics = metrics;
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

    /**
     * Closes every connection with application code 0 and the given reason, and waits (up to
     * {@code timeoutMillis}) until they are closed, so the CONNECTION_CLOSE frames leave before the
     * listener stops.
     */
    public void closeConnections(String reason, long timeoutMillis) {
        java.util.List<io.netty.util.concurrent.Future<?>> closing = new java.util.ArrayList<>();
        for (ConnectionHandler c : connections) {
            closing.add(c.close(reason));
        }
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        for (io.netty.util.concurrent.Future<?> f : closing) {
            f.awaitUninterruptibly(Math.max(0, (deadline - System.nanoTime()) / 1_000_000));
        }
    }
}
