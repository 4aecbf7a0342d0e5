package dev.felix.server.protocol;

import dev.felix.cluster.ClusterView;
import dev.felix.cluster.NodeInfo;
import dev.felix.cluster.peer.PeerEndpoint;
import dev.felix.cluster.peer.PeerMessage;
import dev.felix.cluster.peer.PeerStream;
import dev.felix.cluster.relay.Relay;
import dev.felix.cluster.relay.RelayKey;
import dev.felix.cluster.relay.RelaySettings;
import dev.felix.cluster.relay.RelayedSubscription;
import dev.felix.cluster.relay.StreamKind;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.QueueLimits;
import dev.felix.core.StreamName;
import dev.felix.core.broker.Broker;
import dev.felix.core.routing.Leadership;
import dev.felix.core.stream.EventBatch;
import dev.felix.core.stream.Stream;
import dev.felix.wire.Capabilities;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Serves subscribes for shards another node leads ({@code cluster_relay_subscribe}): one upstream per shard per node
 * (a peer stream to the shard's leader, {@link PeerMessage.RelaySubscribe}) feeds this node's {@link Relay}, which
 * fans each batch out to the local subscriptions ({@link RelayedFeed}) that the usual {@link SubscriptionWriter}s
 * write, with the batch's shared encoded-once frame.
 *
 * <p><b>Why the peer protocol, not a client connection to the leader:</b> nodes already hold mutually authenticated
 * QUIC connections to each other for replication; a client connection would need a tenant token per tenant and the
 * SDK inside the broker. The relay stream is one more stream on that connection.
 *
 * <p><b>What is relayed.</b> Every shard of a {@code subscribe} or {@code mux_subscribe} that another node leads;
 * the shards this node leads are served by the core as usual, in the same subscription. From {@code latest} a
 * subscription joins the relay at once; from an offset or the earliest it first replays from the leader's log
 * ({@link LogReplay}) and then joins. A gap-capable subscription of a durable shard that the relay fences is healed
 * the same way (the relay's resume hook), so it ends with every offset. The subscriber's
 * {@code queue_policy} does not apply: a relayed subscription's losses are the relay's (fence, then gap or
 * {@code resync}). When the upstream ends (the leader moved or left) every local subscription of the shard ends with
 * {@code unavailable}; the client subscribes again. An upstream closes when its last local subscription leaves.
 *
 * <p><b>Threads.</b> {@link #trySubscribe} from any thread; an upstream's state belongs to its peer stream's event
 * loop, where local subscriptions are also registered, so a new subscription's start offset and the batches routed
 * to it cannot interleave.
 */
public final class RelayedShards implements AutoCloseable {

    /** Relayed subscription ids start here, far from the core's, so both can share a connection. */
    private static final long FIRST_ID = 1L << 62;
    /** {@code from} of a subscribe at the relay's current position. */
    private static final long LATEST = -2;

    private final Broker broker;
    private final ClusterView view;
    private final PeerEndpoint peer;
    private final Relay relay;
    private final Map<RelayKey, Upstream> upstreams = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong(FIRST_ID);
    private final Replays replays;
    /** This node's replicas (follower reads), or null. */
    private final dev.felix.cluster.replication.Replication replication;
    /** Reads replicas for replays (disk reads stay off the event loops and the relay's workers). */
    private final java.util.concurrent.ExecutorService replayReader = java.util.concurrent.Executors
            .newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "felix-relay-replay");
                t.setDaemon(true);
                return t;
            });

    private RelayedShards(Broker broker, ClusterView view, PeerEndpoint peer, RelaySettings settings,
            MeterRegistry registry, dev.felix.cluster.replication.Replication replication) {
        this.replication = replication;
        this.broker = broker;
        this.view = view;
        this.peer = peer;
        this.replays = new Replays(registry);
        this.relay = Relay.start(settings, registry, this::heal);
    }

    /** Starts this node's relay (its threads and {@code felix_relay_*} meters in {@code registry}). */
    public static RelayedShards start(Broker broker, ClusterView view, PeerEndpoint peer, RelaySettings settings,
            MeterRegistry registry, dev.felix.cluster.replication.Replication replication) {
        return new RelayedShards(broker, view, peer, settings, registry, replication);
    }

    /** Upstreams open now (one per relayed shard). */
    public int upstreams() {
        return upstreams.size();
    }

    /** Whether this node relays shard {@code shard} of {@code name}: another node leads it, at a known address. */
    boolean relays(StreamName name, int shard) {
        return broker.router().shard(name, shard) instanceof Leadership.Elsewhere e
                && peerAddress(e.leader().nodeId()) != null;
    }

    /**
     * The feed of one shard of a subscribe, relayed from the shard's leader, or null when this node does not relay it
     * (it leads the shard, or does not know where its leader is): the caller takes the usual path, which names any
     * error. A subscribe from an offset or the earliest starts with a {@link LogReplay} from the leader's log.
     */
    CompletableFuture<EventFeed> trySubscribe(StreamSession session, StreamName name, Stream stream, int shard,
            dev.felix.wire.StartPosition start, QueueLimits limits) {
        String leader;
        InetSocketAddress leaderPeer;
        if (!(broker.router().shard(name, shard) instanceof Leadership.Elsewhere e)) {
            return null;
        }
        leader = e.leader().nodeId();
        leaderPeer = peerAddress(leader);
        if (leaderPeer == null) {
            return null;
        }
        ConnectionHandler connection = session.connection;
        if (!connection.reserveSubscriptions(1)) { // as the core path: a connection's subscriptions are bounded
            return CompletableFuture.failedFuture(FelixError.of(ErrorCode.OVERLOADED, "this connection holds "
                    + ServerContext.MAX_SUBSCRIPTIONS_PER_CONNECTION + " subscriptions already").toException());
        }
        RelayKey key = new RelayKey(name, shard);
        StreamKind kind = stream.config().durable() ? StreamKind.DURABLE
                : stream.config().noReplay() ? StreamKind.EPHEMERAL_NO_REPLAY : StreamKind.EPHEMERAL;
        boolean gapCapable = Capabilities.has(session.negotiated(), Capabilities.GAP_NOTICES);
        long from = start == null || start instanceof dev.felix.wire.StartPosition.Latest ? LATEST
                : start instanceof dev.felix.wire.StartPosition.AtOffset at ? at.offset()
                : PeerMessage.RelayCatchUp.EARLIEST;
        Upstream[] created = {null};
        Upstream up = upstreams.compute(key, (k, existing) -> {
            Upstream u = existing != null && existing.leader.equals(leader) && !existing.ended ? existing
                    : (created[0] = new Upstream(k, leader));
            u.pending.incrementAndGet(); // under the map's lock: a closing upstream sees it
            return u;
        });
        if (up == created[0]) {
            up.open(leaderPeer);
        }
        CompletableFuture<EventFeed> feed = up.started.thenCompose(v -> up.register(kind, gapCapable, limits, from));
        feed.whenComplete((f, err) -> connection.releaseReservationLater(1));
        return feed;
    }

    /**
     * The resume hook: replays a gap-capable subscription of a durable shard that the relay fenced, from the
     * leader's log, instead of announcing a {@code relay_lag} gap.
     */
    private void heal(RelayedSubscription subscription, long fromOffset) {
        Upstream up = upstreams.get(subscription.key());
        InetSocketAddress address = up == null ? null : peerAddress(up.leader);
        RelayedFeed feed = (RelayedFeed) subscription.sink();
        if (address == null) {
            subscription.close();
            feed.end(new FelixError(ErrorCode.RESYNC, "this node's relay of " + subscription.key() + " lost events"
                    + " and the shard's leader is unknown here; subscribe again from offset " + fromOffset,
                    fromOffset));
            replays.failed.increment();
            return;
        }
        up.replay(subscription, feed, fromOffset);
    }

    /** This node's own copy of a durable shard it follows, if it holds one (follower reads). */
    private dev.felix.cluster.replication.FollowerRead followerRead(RelayKey key) {
        if (replication == null) {
            return null;
        }
        try {
            var record = broker.metadata().stream(key.stream());
            if (record.isEmpty() || !record.get().config().durable()) {
                return null;
            }
            return replication.followerRead(dev.felix.cluster.ShardKey.stream(record.get().uid(), key.shard()))
                    .orElse(null);
        } catch (FelixException e) {
            return null;
        }
    }

    private InetSocketAddress peerAddress(String nodeId) {
        NodeInfo node = view.node(nodeId).orElse(null);
        return node == null || node.peerAddress() == null ? null : address(node.peerAddress());
    }

    @Override
    public void close() {
        relay.close();
        replayReader.shutdownNow();
        for (Upstream u : List.copyOf(upstreams.values())) {
            PeerStream st = u.stream;
            if (st != null) {
                st.close();
            }
        }
    }

    private static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /** This node's one subscription to a shard's leader, and the local subscriptions it feeds. */
    private final class Upstream implements PeerStream.Listener {
        final RelayKey key;
        final String leader;
        final CompletableFuture<Void> started = new CompletableFuture<>();
        /** Subscribes on their way to {@link #register}; guarded by the upstreams map for the close decision. */
        final AtomicInteger pending = new AtomicInteger();
        final Set<RelayedFeed> locals = ConcurrentHashMap.newKeySet();
        volatile PeerStream stream;
        volatile boolean ended;
        /** {@link #end} ran (once: the stream's end and its close both report it). */
        final java.util.concurrent.atomic.AtomicBoolean finished = new java.util.concurrent.atomic.AtomicBoolean();
        /** The offset after the last batch received (read by replays on other threads). Written on the event loop. */
        volatile long next;
        // Event loop:
        long incarnation;

        Upstream(RelayKey key, String leader) {
            this.key = key;
            this.leader = leader;
        }

        void open(InetSocketAddress address) {
            peer.open(leader, address, this).whenComplete((st, err) -> {
                if (err != null) {
                    end(FelixError.of(ErrorCode.UNAVAILABLE, "could not reach node " + leader + ", the leader of "
                            + key + ": " + err.getMessage()));
                    return;
                }
                stream = st;
                st.send(new PeerMessage.RelaySubscribe(key.stream().toString(), key.shard()));
            });
        }

        /**
         * Adds one local subscription, at the relay's current position or, from an earlier offset (or the
         * earliest), behind it with a {@link LogReplay}; on the stream's event loop.
         */
        CompletableFuture<EventFeed> register(StreamKind kind, boolean gapCapable, QueueLimits limits, long from) {
            CompletableFuture<EventFeed> out = new CompletableFuture<>();
            stream.execute(() -> {
                if (ended) {
                    pending.decrementAndGet();
                    out.completeExceptionally(FelixError.of(ErrorCode.UNAVAILABLE, "the relay of " + key
                            + " from node " + leader + " ended; subscribe again").toException());
                    return;
                }
                RelayedFeed[] self = new RelayedFeed[1];
                self[0] = new RelayedFeed(ids.incrementAndGet(), key.shard(), kind == StreamKind.DURABLE,
                        incarnation, limits, () -> left(self[0]));
                locals.add(self[0]); // before the pending count drops: left() never sees neither
                pending.decrementAndGet();
                boolean behind = from != LATEST && from < next;
                RelayedSubscription sub;
                try {
                    sub = behind ? relay.subscribeBehind(key, kind, self[0], gapCapable, Math.max(0, from))
                            : relay.subscribe(key, kind, self[0], gapCapable, from == LATEST ? next : from);
                    self[0].bind(sub);
                } catch (IllegalArgumentException e) { // the stream was re-created with another kind
                    left(self[0]);
                    out.completeExceptionally(FelixError.of(ErrorCode.UNAVAILABLE, e.getMessage()).toException());
                    return;
                }
                if (behind) {
                    replay(sub, self[0], from);
                }
                out.complete(self[0]);
            });
            return out;
        }

        /** Replays {@code sub} from {@code from} (or the earliest) off the leader's log, then it rejoins. */
        void replay(RelayedSubscription sub, RelayedFeed feed, long from) {
            InetSocketAddress address = peerAddress(leader);
            replays.started.increment();
            LogReplay replay = new LogReplay(key, sub, feed, from, leader, () -> next,
                    rejoined -> (rejoined ? replays.rejoined : replays.failed).increment(), followerRead(key),
                    replayReader, replays.fromReplica, replays.fromLeader);
            if (address == null) {
                replay.onClosed(null, new IllegalStateException("node " + leader + " has no known peer address"));
                return;
            }
            replay.start(peer, address);
        }

        /** A local subscription left: the last one closes the upstream (unless another is on its way). */
        private void left(RelayedFeed feed) {
            locals.remove(feed);
            boolean[] close = {false};
            upstreams.computeIfPresent(key, (k, u) -> {
                if (u == this && pending.get() == 0 && locals.isEmpty()) { // pending first: see register
                    close[0] = true;
                    relay.forget(key);
                    return null;
                }
                return u;
            });
            if (close[0]) {
                ended = true;
                PeerStream st = stream;
                if (st != null) {
                    st.close();
                }
            }
        }

        @Override
        public void onMessage(PeerStream st, PeerMessage message) {
            if (message instanceof PeerMessage.RelayEvents e) {
                EventBatch batch = new EventBatch(key.shard(), e.baseOffset(), e.payloads(), 0);
                next = batch.endOffset();
                relay.receive(key, batch);
            } else if (message instanceof PeerMessage.RelayStarted r) {
                next = r.next();
                incarnation = r.incarnation();
                started.complete(null);
            } else if (message instanceof PeerMessage.Refused r) {
                end(new FelixError(r.code() == PeerMessage.Refusal.NOT_LEADER ? ErrorCode.NOT_LEADER
                        : ErrorCode.UNAVAILABLE, "node " + leader + " refused to relay " + key + ": " + r.message(),
                        -1));
                st.close();
            } else {
                st.close();
            }
        }

        @Override
        public void onInputEnded(PeerStream st) {
            onClosed(st, null); // the leader ended the relay (its subscription ended: it no longer leads)
            st.close();
        }

        @Override
        public void onClosed(PeerStream st, Throwable cause) {
            end(FelixError.of(ErrorCode.UNAVAILABLE, "the relay of " + key + " from node " + leader
                    + " ended (the shard's leader moved or left); subscribe again"));
        }

        private void end(FelixError error) {
            if (!finished.compareAndSet(false, true)) {
                return;
            }
            ended = true;
            upstreams.computeIfPresent(key, (k, u) -> {
                if (u != this) {
                    return u;
                }
                relay.forget(key); // a later upstream may start at other offsets (a new incarnation)
                return null;
            });
            started.completeExceptionally(error.toException());
            for (RelayedFeed f : List.copyOf(locals)) {
                f.end(error);
            }
        }
    }

    /** {@code felix_relay_replays_total{outcome}}: log replays of relayed subscriptions, by how they ended. */
    private static final class Replays {
        final io.micrometer.core.instrument.Counter started;
        final io.micrometer.core.instrument.Counter rejoined;
        final io.micrometer.core.instrument.Counter failed;
        final io.micrometer.core.instrument.Counter fromReplica;
        final io.micrometer.core.instrument.Counter fromLeader;

        Replays(MeterRegistry registry) {
            started = counter(registry, "started");
            rejoined = counter(registry, "rejoined");
            failed = counter(registry, "failed");
            fromReplica = events(registry, "replica");
            fromLeader = events(registry, "leader");
        }

        private static io.micrometer.core.instrument.Counter events(MeterRegistry registry, String source) {
            return io.micrometer.core.instrument.Counter.builder("felix.relay.replayed.events")
                    .description("Events replays delivered, by where they were read: this node's own replica"
                            + " (follower reads) or the shard's leader")
                    .tag("source", source).register(registry);
        }

        private static io.micrometer.core.instrument.Counter counter(MeterRegistry registry, String outcome) {
            return io.micrometer.core.instrument.Counter.builder("felix.relay.replays")
                    .description("Log replays of relayed subscriptions (a subscribe from an offset on a node that"
                            + " does not lead the shard, or a heal after the relay lost events), by outcome")
                    .tag("outcome", outcome).register(registry);
        }
    }
}
