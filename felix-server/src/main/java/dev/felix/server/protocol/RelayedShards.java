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
 * <p><b>What is relayed.</b> A classic {@code subscribe} of one shard (named, or the only one) starting at
 * {@code latest}, when this node does not lead the shard. Anything else (an offset or earliest, several shards,
 * {@code mux_subscribe}) takes the usual path and is answered {@code not_leader} as before. The subscriber's
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

    private final Broker broker;
    private final ClusterView view;
    private final PeerEndpoint peer;
    private final Relay relay;
    private final Map<RelayKey, Upstream> upstreams = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong(FIRST_ID);

    private RelayedShards(Broker broker, ClusterView view, PeerEndpoint peer, Relay relay) {
        this.broker = broker;
        this.view = view;
        this.peer = peer;
        this.relay = relay;
    }

    /** Starts this node's relay (its threads and {@code felix_relay_*} meters in {@code registry}). */
    public static RelayedShards start(Broker broker, ClusterView view, PeerEndpoint peer, RelaySettings settings,
            MeterRegistry registry) {
        return new RelayedShards(broker, view, peer, Relay.start(settings, registry, null));
    }

    /** Upstreams open now (one per relayed shard). */
    public int upstreams() {
        return upstreams.size();
    }

    /**
     * The feeds of a subscribe this node relays, or null when it does not relay it (the caller takes the usual path,
     * which names any error).
     */
    CompletableFuture<List<EventFeed>> trySubscribe(StreamSession session, SubscriptionSetup.Spec s, QueueLimits limits) {
        if (s.start() != null && !(s.start() instanceof dev.felix.wire.StartPosition.Latest)) {
            return null;
        }
        StreamName name;
        Stream stream;
        int shard;
        String leader;
        InetSocketAddress leaderPeer;
        try {
            name = Routing.streamName(session.tenant(), s.tenantId(), s.namespace(), s.stream());
            stream = broker.stream(name);
            if (s.shard() != null) {
                shard = Routing.shardOf(stream, s.shard()).index();
            } else if (stream.shardCount() == 1) {
                shard = 0;
            } else {
                return null;
            }
            if (!(broker.router().shard(name, shard) instanceof Leadership.Elsewhere e)) {
                return null;
            }
            leader = e.leader().nodeId();
            NodeInfo node = view.node(leader).orElse(null);
            if (node == null || node.peerAddress() == null) {
                return null;
            }
            leaderPeer = address(node.peerAddress());
        } catch (FelixException | IllegalArgumentException e) {
            return null;
        }
        ConnectionHandler connection = session.connection;
        if (!connection.reserveSubscriptions(1)) { // as the core path: a connection's subscriptions are bounded
            return CompletableFuture.failedFuture(FelixError.of(ErrorCode.OVERLOADED, "this connection holds "
                    + ServerContext.MAX_SUBSCRIPTIONS_PER_CONNECTION + " subscriptions already").toException());
        }
        RelayKey key = new RelayKey(name, shard);
        StreamKind kind = stream.config().durable() ? StreamKind.DURABLE : StreamKind.EPHEMERAL;
        boolean gapCapable = Capabilities.has(session.negotiated(), Capabilities.GAP_NOTICES);
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
        CompletableFuture<List<EventFeed>> feeds = up.started.thenCompose(v -> up.register(kind, gapCapable, limits));
        feeds.whenComplete((f, err) -> connection.releaseReservationLater(1));
        return feeds;
    }

    @Override
    public void close() {
        relay.close();
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
        // Event loop:
        long next;
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

        /** Adds one local subscription at the relay's current position; on the stream's event loop. */
        CompletableFuture<List<EventFeed>> register(StreamKind kind, boolean gapCapable, QueueLimits limits) {
            CompletableFuture<List<EventFeed>> out = new CompletableFuture<>();
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
                try {
                    RelayedSubscription sub = relay.subscribe(key, kind, self[0], gapCapable, next);
                    self[0].bind(sub);
                } catch (IllegalArgumentException e) { // the stream was re-created with another kind
                    left(self[0]);
                    out.completeExceptionally(FelixError.of(ErrorCode.UNAVAILABLE, e.getMessage()).toException());
                    return;
                }
                out.complete(List.of(self[0]));
            });
            return out;
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
}
