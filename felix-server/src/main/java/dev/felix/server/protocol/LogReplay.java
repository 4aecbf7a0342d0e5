package dev.felix.server.protocol;

import dev.felix.cluster.peer.PeerEndpoint;
import dev.felix.cluster.peer.PeerMessage;
import dev.felix.cluster.peer.PeerStream;
import dev.felix.cluster.relay.RelayKey;
import dev.felix.cluster.relay.RelayedSubscription;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.stream.Delivery;
import dev.felix.core.stream.EventBatch;
import dev.felix.core.stream.GapNotice;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Replays one relayed subscription from a log, then hands it back to the relay: the subscription started behind the
 * relay (a subscribe from an offset or the earliest on a node that does not lead the shard), or the relay lost
 * events it had not received and it can heal (gap-capable, durable). The replay is a catch-up stream to the shard's
 * leader ({@link PeerMessage.RelayCatchUp}): the leader serves it as it serves a subscriber of its own, from its log
 * when behind, so the replay never skips what the leader holds.
 *
 * <p><b>Rejoin.</b> While it replays, the relay holds the batches it receives for the subscription. Once the replay
 * has delivered up to the first of them ({@link RelayedSubscription#heldFrom()}), or up to the end the node's relay
 * has received when it holds none, it rejoins there and the relay goes on; a rejoin short of what the relay still
 * holds is a new loss and a new replay, never a silent skip.
 *
 * <p><b>Memory.</b> Deliveries go to the subscription's bounded {@link RelayedFeed}; when it is full the replay stops
 * reading its stream (QUIC flow control holds the leader back) until the feed drains to half.
 *
 * <p><b>Failure.</b> If the leader refuses or the stream ends before the rejoin, the subscription ends with a typed
 * {@code resync} error naming the offset to subscribe again from.
 *
 * <p><b>Threads.</b> Everything after {@link #start} runs on the catch-up stream's event loop.
 */
final class LogReplay implements PeerStream.Listener {

    private final RelayKey key;
    private final RelayedSubscription subscription;
    private final RelayedFeed feed;
    private final long from;
    private final String leader;
    private final LongSupplier relayEnd;
    private final Consumer<Boolean> outcome;
    // Event loop:
    private final ArrayDeque<Delivery> waiting = new ArrayDeque<>();
    private PeerStream stream;
    /** The next offset to deliver; -1 until the leader says where it starts. */
    private long expected = -1;
    private boolean finished;

    /**
     * @param from     the first offset to replay, or {@link PeerMessage.RelayCatchUp#EARLIEST}
     * @param relayEnd the offset after the last batch this node's relay of the shard received
     * @param outcome  told once: true when the subscription rejoined the relay, false when it ended
     */
    LogReplay(RelayKey key, RelayedSubscription subscription, RelayedFeed feed, long from, String leader,
            LongSupplier relayEnd, Consumer<Boolean> outcome) {
        this.key = key;
        this.subscription = subscription;
        this.feed = feed;
        this.from = from;
        this.leader = leader;
        this.relayEnd = relayEnd;
        this.outcome = outcome;
    }

    /** Opens the catch-up stream to the leader at {@code address}. Any thread. */
    void start(PeerEndpoint peer, InetSocketAddress address) {
        peer.open(leader, address, this).whenComplete((st, err) -> {
            if (err != null) {
                fail("could not reach node " + leader + " to replay it: " + err.getMessage());
                return;
            }
            st.execute(() -> {
                stream = st;
                st.send(new PeerMessage.RelayCatchUp(key.stream().toString(), key.shard(), from));
            });
        });
    }

    @Override
    public void onMessage(PeerStream st, PeerMessage message) {
        if (finished) {
            return;
        }
        if (message instanceof PeerMessage.RelayStarted s) {
            expected = from == PeerMessage.RelayCatchUp.EARLIEST ? s.next() : from;
        } else if (message instanceof PeerMessage.RelayGap g && expected >= 0) {
            if (g.to() >= expected) {
                waiting.add(new GapNotice(key.shard(), Math.max(g.from(), expected), g.to(),
                        GapNotice.Reason.fromWireName(g.reason())));
                expected = g.to() + 1;
            }
        } else if (message instanceof PeerMessage.RelayEvents e && expected >= 0) {
            EventBatch batch = new EventBatch(key.shard(), e.baseOffset(), e.payloads(), 0);
            if (batch.baseOffset() > expected) { // the leader skipped: say so, as its own subscriber would be told
                waiting.add(new GapNotice(key.shard(), expected, batch.baseOffset() - 1, GapNotice.Reason.RELAY_LAG));
                expected = batch.baseOffset();
            }
            if (batch.lastOffset() >= expected) {
                waiting.add(batch.from(expected));
                expected = batch.endOffset();
            }
        } else if (message instanceof PeerMessage.Refused r) {
            fail("node " + leader + " refused to replay it: " + r.message());
            return;
        } else {
            fail("node " + leader + " sent " + message.getClass().getSimpleName() + " on a catch-up stream");
            return;
        }
        drain();
    }

    /** Offers what waits, in order; rejoins the relay once everything is delivered and the replay reached it. */
    private void drain() {
        while (!waiting.isEmpty()) {
            if (!feed.offer(waiting.peekFirst())) {
                stream.setReading(false);
                feed.whenSpace(() -> stream.execute(() -> {
                    if (!finished) {
                        stream.setReading(true);
                        drain();
                    }
                }));
                return;
            }
            waiting.pollFirst();
        }
        if (expected < 0) {
            return;
        }
        long held = subscription.heldFrom();
        long target = held >= 0 ? held : relayEnd.getAsLong();
        if (expected >= target) {
            finished = true;
            subscription.rejoin(expected);
            stream.close();
            outcome.accept(true);
        }
    }

    @Override
    public void onInputEnded(PeerStream st) {
        fail("node " + leader + " ended the replay (the shard's leader moved or left)");
    }

    @Override
    public void onClosed(PeerStream st, Throwable cause) {
        fail("the replay stream from node " + leader + " closed"
                + (cause == null ? "" : ": " + cause.getMessage()));
    }

    private void fail(String why) {
        if (finished) {
            return;
        }
        finished = true;
        long resumeAt = expected >= 0 ? expected : Math.max(0, subscription.nextOffset());
        PeerStream st = stream;
        if (st != null) {
            st.close();
        }
        subscription.close();
        feed.end(new FelixError(ErrorCode.RESYNC, "this node's replay of " + key.stream() + " shard " + key.shard()
                + " stopped: " + why + "; subscribe again from offset " + resumeAt, resumeAt));
        outcome.accept(false);
    }
}
