package dev.felix.server.protocol;

import dev.felix.cluster.peer.PeerEndpoint;
import dev.felix.cluster.replication.FollowerRead;
import dev.felix.storage.LogRecord;
import dev.felix.storage.ReadResult;
import io.micrometer.core.instrument.Counter;
import java.util.List;
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
 * events it had not received and it can heal (gap-capable, durable).
 *
 * <p><b>Sources.</b> First this node's own replica of the shard, when it has one ({@link FollowerRead}: up to the
 * high watermark its leader told it, so nothing read there can be truncated later), read on a replay thread; then,
 * for what the replica does not hold yet, a catch-up stream to the shard's leader ({@link PeerMessage.RelayCatchUp}):
 * the leader serves it as it serves a subscriber of its own, from its log when behind, so the replay never skips
 * what the leader holds.
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
 * <p><b>Threads.</b> The replica phase runs on the replay executor, the leader phase on the catch-up stream's event
 * loop; they run one after the other (each hands over by submitting the next), so the fields need no lock.
 */
final class LogReplay implements PeerStream.Listener {

    /** One read of the replica: enough to keep a subscriber's queue busy, small enough to yield the thread. */
    private static final int REPLICA_READ_RECORDS = 256;
    private static final long REPLICA_READ_BYTES = 1 << 20;

    private final RelayKey key;
    private final RelayedSubscription subscription;
    private final RelayedFeed feed;
    private final long from;
    private final String leader;
    private final LongSupplier relayEnd;
    private final Consumer<Boolean> outcome;
    private final FollowerRead replica;
    private final java.util.concurrent.Executor reader;
    private final Counter fromReplica;
    private final Counter fromLeader;
    private PeerEndpoint peer;
    private InetSocketAddress address;
    // One phase at a time (see Threads):
    private final ArrayDeque<Delivery> waiting = new ArrayDeque<>();
    private PeerStream stream;
    /** The next offset to deliver; -1 until the leader says where it starts. */
    private long expected = -1;
    private boolean finished;

    /**
     * @param from     the first offset to replay, or {@link PeerMessage.RelayCatchUp#EARLIEST}
     * @param relayEnd the offset after the last batch this node's relay of the shard received
     * @param outcome  told once: true when the subscription rejoined the relay, false when it ended
     * @param replica  this node's copy of the shard, or null
     * @param reader   runs the replica phase
     */
    LogReplay(RelayKey key, RelayedSubscription subscription, RelayedFeed feed, long from, String leader,
            LongSupplier relayEnd, Consumer<Boolean> outcome, FollowerRead replica,
            java.util.concurrent.Executor reader, Counter fromReplica, Counter fromLeader) {
        this.replica = replica;
        this.reader = reader;
        this.fromReplica = fromReplica;
        this.fromLeader = fromLeader;
        this.key = key;
        this.subscription = subscription;
        this.feed = feed;
        this.from = from;
        this.leader = leader;
        this.relayEnd = relayEnd;
        this.outcome = outcome;
    }

    /** Replays from this node's replica (if any), then from the leader at {@code leaderAddress}. Any thread. */
    void start(PeerEndpoint endpoint, InetSocketAddress leaderAddress) {
        this.peer = endpoint;
        this.address = leaderAddress;
        if (replica != null) {
            reader.execute(this::readReplica);
        } else {
            openLeader();
        }
    }

    /** Replica phase: reads committed records from this node's copy, as far as it holds them. Replay executor. */
    private void readReplica() {
        if (finished) {
            return;
        }
        if (expected < 0) {
            long base = replica.baseOffset();
            if (from == PeerMessage.RelayCatchUp.EARLIEST && base < 0) {
                openLeader();
                return;
            }
            expected = from == PeerMessage.RelayCatchUp.EARLIEST ? base : from;
        }
        while (true) {
            if (!offerWaiting(() -> reader.execute(this::readReplica)) || rejoinIfCaughtUp()) {
                return;
            }
            ReadResult r;
            try {
                r = replica.read(expected, REPLICA_READ_RECORDS, REPLICA_READ_BYTES);
            } catch (RuntimeException e) {
                break; // the leader serves it
            }
            if (!(r instanceof ReadResult.Records records) || records.records().isEmpty()) {
                break; // nothing more committed here (or trimmed, or damaged): the leader serves the rest
            }
            List<LogRecord> list = records.records();
            byte[][] payloads = new byte[list.size()][];
            for (int i = 0; i < payloads.length; i++) {
                payloads[i] = list.get(i).payload();
            }
            waiting.add(new EventBatch(key.shard(), list.get(0).offset(), payloads, 0));
            fromReplica.increment(payloads.length);
            expected = records.nextOffset();
        }
        openLeader();
    }

    /** Leader phase: a catch-up stream from where the replica phase stopped (or {@code from}). */
    private void openLeader() {
        if (finished) {
            return;
        }
        long start = expected >= 0 ? expected : from;
        peer.open(leader, address, this).whenComplete((st, err) -> {
            if (err != null) {
                fail("could not reach node " + leader + " to replay it: " + err.getMessage());
                return;
            }
            st.execute(() -> {
                stream = st;
                st.send(new PeerMessage.RelayCatchUp(key.stream().toString(), key.shard(), start));
            });
        });
    }

    @Override
    public void onMessage(PeerStream st, PeerMessage message) {
        if (finished) {
            return;
        }
        if (message instanceof PeerMessage.RelayStarted s) {
            if (expected < 0) {
                expected = from == PeerMessage.RelayCatchUp.EARLIEST ? s.next() : from;
            }
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
                EventBatch part = batch.from(expected);
                waiting.add(part);
                fromLeader.increment(part.eventCount());
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

    /** Leader phase: offers what waits, in order; rejoins the relay once the replay reached it. Event loop. */
    private void drain() {
        boolean offered = offerWaiting(() -> stream.execute(() -> {
            if (!finished) {
                stream.setReading(true);
                drain();
            }
        }));
        if (!offered) {
            stream.setReading(false); // QUIC flow control holds the leader back until the feed has room
            return;
        }
        rejoinIfCaughtUp();
    }

    /**
     * Offers what waits, in order. @return false if the feed is full: {@code onSpace} runs once it has room
     */
    private boolean offerWaiting(Runnable onSpace) {
        while (!waiting.isEmpty()) {
            if (!feed.offer(waiting.peekFirst())) {
                feed.whenSpace(onSpace);
                return false;
            }
            waiting.pollFirst();
        }
        return true;
    }

    /** Everything offered: rejoins if the replay reached what the relay holds (or its end). */
    private boolean rejoinIfCaughtUp() {
        if (expected < 0 || !waiting.isEmpty()) {
            return false;
        }
        long held = subscription.heldFrom();
        long target = held >= 0 ? held : relayEnd.getAsLong();
        if (expected < target) {
            return false;
        }
        finished = true;
        subscription.rejoin(expected);
        PeerStream st = stream;
        if (st != null) {
            st.close();
        }
        outcome.accept(true);
        return true;
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
