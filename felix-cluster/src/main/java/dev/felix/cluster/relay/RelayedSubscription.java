package dev.felix.cluster.relay;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.stream.EventBatch;
import dev.felix.core.stream.GapNotice;

/**
 * One local subscription a relay feeds: it tracks the next offset its subscriber should receive, and its fence.
 *
 * <h2>States</h2>
 * <pre>
 *   LIVE ──loss──▶ GAP_PENDING (gap-capable)  ──gap{next, lost end} (or, when unknown, gap{next, base-1} before
 *                                                 the next batch)──▶ LIVE
 *        ──loss──▶ HEALING (gap-capable, durable, a resume hook) ──{@link #rejoin}──▶ LIVE
 *   (start behind the relay, {@link Relay#subscribeBehind}) ──▶ HEALING
 *        ──loss──▶ CLOSING (plain)  ──paced closer: resync error──▶ CLOSED
 * </pre>
 * A loss is any offset at or after {@code next} the subscriber will not get from the relay: its batch was lost at a
 * full queue, at its deadline or in a stalled write, or a batch arrives that starts past {@code next}. Every state
 * but LIVE is fenced: nothing newer than the loss reaches the sink from then on except, for GAP_PENDING, the gap
 * notice that announces it immediately followed by the stream's continuation. While HEALING the relay holds what
 * arrives for the subscription (its worker's stalled backlog, bounded and within the deadline) and offers it after
 * the rejoin, trimmed to where the heal ended; what it cannot hold is the heal's to read. A subscription of an
 * {@link StreamKind#EPHEMERAL_NO_REPLAY} shard is never fenced: its losses are only counted.
 *
 * <p><b>The fence is atomic with the send.</b> The state and every {@link RelaySink#offer} are under this object's
 * monitor, so a fence set from another thread (the dispatcher finding a full queue, or unknown loss) is seen by
 * the worker before its next offer; no frame slips between the check and the send.
 *
 * <p><b>Threads.</b> Public methods from any thread. The resume hook and the closer are called after the monitor
 * is released.
 */
public final class RelayedSubscription {

    /** Where the subscription stands; see the class comment. */
    enum State {
        LIVE, GAP_PENDING, HEALING, CLOSING, CLOSED
    }

    /** What one delivery attempt did. */
    enum Outcome {
        /** The sink took the batch (or its part from {@code next}). */
        DELIVERED,
        /** Nothing to deliver to this subscription (it has the batch already, or it is fenced). */
        SKIPPED,
        /** The sink could not take it now: offer again later, until the deadline. */
        STALLED
    }

    private final long id;
    private final ShardFeed feed;
    private final RelaySink sink;
    private final boolean gapCapable;
    private final Relay relay;
    private State state = State.LIVE;
    /** The first offset the subscriber has not received (from the relay or from a resume). */
    private long next;
    /** The last offset known lost while fenced ({@link Long#MAX_VALUE}: unknown), -1 for none. */
    private long lostTo = -1;
    /** Batches waiting behind a stalled write, in order; null until the first stall. Its worker's lane only. */
    java.util.ArrayDeque<Routed> backlog;
    /** In its worker's stalled set. Its worker's lane only. */
    boolean inStalled;
    /**
     * While HEALING: the base offset of the first batch the relay held for this subscription (its worker keeps them
     * as a stalled backlog until {@link #rejoin}), -1 for none. Guarded by this object's monitor.
     */
    private long heldFrom = -1;
    /** Waiting in its worker's queue of gap announcements (so it is queued once). */
    final java.util.concurrent.atomic.AtomicBoolean announceQueued = new java.util.concurrent.atomic.AtomicBoolean();

    RelayedSubscription(long id, ShardFeed feed, RelaySink sink, boolean gapCapable, long next, Relay relay,
            boolean healing) {
        this.state = healing ? State.HEALING : State.LIVE;
        this.id = id;
        this.feed = feed;
        this.sink = sink;
        this.gapCapable = gapCapable;
        this.next = next;
        this.relay = relay;
    }

    public long id() {
        return id;
    }

    public RelayKey key() {
        return feed.key;
    }

    /** Where the subscription delivers; while it heals, its resume hook offers to it directly. */
    public RelaySink sink() {
        return sink;
    }

    /**
     * While healing: where the replay must reach to rejoin without a new loss — the first offset of what the relay
     * holds for the subscription to deliver after {@link #rejoin} (batches that arrived during the heal), moved past
     * any held batch it had to let go of — or -1 if it has held nothing yet.
     */
    public synchronized long heldFrom() {
        return state == State.HEALING ? heldFrom : -1;
    }

    /**
     * While healing: the relay let go of a batch it held for the subscription (past its deadline, or to make room
     * for a newer one), so the replay must reach at least {@code endOffset} before it may rejoin: nothing held
     * will fill in below it, and the batch may have been the last one to come. Worker thread.
     */
    synchronized void heldDropped(long endOffset) {
        if (state == State.HEALING) {
            heldFrom = Math.max(heldFrom, endOffset);
        }
    }

    /** Whether a resume hook is replaying the subscription's missed offsets (the relay holds newer batches). */
    synchronized boolean healing() {
        return state == State.HEALING;
    }

    /** Whether the subscriber negotiated gap notices. */
    public boolean gapCapable() {
        return gapCapable;
    }

    /** The first offset the subscriber has not received. */
    public synchronized long nextOffset() {
        return next;
    }

    /** Whether the subscription is fenced (or closed): the relay delivers it nothing newer than its loss. */
    public synchronized boolean fenced() {
        return state != State.LIVE;
    }

    synchronized State state() {
        return state;
    }

    /** The sink can take more: its worker offers what it holds again. */
    public void writable() {
        relay.signalWorker(feed);
    }

    /**
     * Ends a heal: the resume hook delivered every offset below {@code nextOffset}, and the relay goes on from
     * there (later batches are trimmed to it; one that starts past it is a new loss and a new heal).
     *
     * @throws IllegalStateException if the subscription is not healing
     */
    public void rejoin(long nextOffset) {
        synchronized (this) {
            if (state == State.CLOSED) {
                return;
            }
            if (state != State.HEALING) {
                throw new IllegalStateException("subscription " + id + " is " + state + ", not healing: only a resume"
                        + " hook the relay called may rejoin it");
            }
            state = State.LIVE;
            next = nextOffset;
            heldFrom = -1;
        }
        relay.signalWorker(feed); // the worker offers what it held, trimmed to nextOffset
    }

    /** Stops the subscription (the subscriber left); nothing more reaches the sink. Idempotent. */
    public void close() {
        synchronized (this) {
            state = State.CLOSED;
        }
        feed.remove(this);
    }

    /**
     * Offers {@code batch} (the part from {@code next}) to the sink unless fenced; finding that it starts past
     * {@code next} is a loss and fences first. Worker thread.
     */
    Outcome deliver(EventBatch batch) {
        Outcome out;
        Action after;
        synchronized (this) {
            after = Action.NONE;
            out = switch (state) {
                case CLOSING, CLOSED -> Outcome.SKIPPED;
                case HEALING -> {
                    // Held (as a stalled write) for after the heal, so the hook need not chase the live end.
                    if (batch.lastOffset() < next) {
                        yield Outcome.SKIPPED;
                    }
                    if (heldFrom < 0) {
                        heldFrom = batch.baseOffset();
                    }
                    yield Outcome.STALLED;
                }
                case LIVE -> {
                    if (batch.lastOffset() < next) {
                        yield Outcome.SKIPPED;
                    }
                    if (batch.baseOffset() > next) {
                        if (!feed.kind.fencesOnLoss()) {
                            next = batch.baseOffset(); // no_replay: counted where it was lost, never announced
                            yield offerLive(batch);
                        }
                        after = fenceLocked(batch.baseOffset() - 1);
                        yield state == State.GAP_PENDING ? offerAfterGap(batch) : Outcome.SKIPPED;
                    }
                    yield offerLive(batch);
                }
                case GAP_PENDING -> offerAfterGap(batch);
            };
        }
        run(after);
        return out;
    }

    /**
     * Fences the subscription after a loss reaching up to {@code lostTo} (inclusive; {@link Long#MAX_VALUE} for
     * unknown loss), unless it already holds every offset up to there, is fenced already, or its shard is
     * {@code no_replay}.
     *
     * @return whether it was fenced by this call
     */
    boolean fence(long lostTo) {
        if (!feed.kind.fencesOnLoss()) {
            return false;
        }
        Action after;
        synchronized (this) {
            if (next > lostTo) {
                return false;
            }
            if (state == State.GAP_PENDING) {
                // The gap to announce grows; a known end replaces an unknown one.
                this.lostTo = this.lostTo == Long.MAX_VALUE ? lostTo : Math.max(this.lostTo, lostTo);
                return false;
            }
            if (state != State.LIVE) {
                return false;
            }
            after = fenceLocked(lostTo);
        }
        run(after);
        return true;
    }

    /**
     * GAP_PENDING with a known end of loss: offers {@code gap{next, lostTo}} now, without waiting for a later batch
     * (there may be none: the last batch of a burst can be the one lost), and goes live after it. Worker thread,
     * once every batch older than the loss has been offered (the subscription's backlog is empty).
     */
    Outcome announceGap() {
        synchronized (this) {
            if (state != State.GAP_PENDING || lostTo < next || lostTo == Long.MAX_VALUE) {
                return Outcome.SKIPPED;
            }
            if (!sink.offer(new GapNotice(feed.key.shard(), next, lostTo, GapNotice.Reason.RELAY_LAG))) {
                return Outcome.STALLED;
            }
            relay.metrics().gap();
            next = lostTo + 1;
            state = State.LIVE;
            return Outcome.DELIVERED;
        }
    }

    /** Paced closer: ends a CLOSING subscription with {@code resync}. @return whether it closed it. */
    boolean closeForResync() {
        long resumeAt;
        synchronized (this) {
            if (state != State.CLOSING) {
                return false;
            }
            state = State.CLOSED;
            resumeAt = next;
        }
        feed.remove(this);
        sink.end(new FelixError(ErrorCode.RESYNC, "this node's relay of " + feed.key.stream() + " shard "
                + feed.key.shard() + " fell behind and lost events this subscription had not received; subscribe"
                + " again from offset " + resumeAt + " (here or on the shard's leader)", resumeAt));
        return true;
    }

    private enum Action {
        NONE, HEAL, ANNOUNCE, CLOSE
    }

    private Action fenceLocked(long lostUpTo) {
        relay.metrics().fenced();
        if (gapCapable && feed.kind == StreamKind.DURABLE && relay.resumeHook() != null) {
            state = State.HEALING;
            return Action.HEAL;
        }
        if (gapCapable) {
            state = State.GAP_PENDING;
            lostTo = lostUpTo;
            return Action.ANNOUNCE;
        }
        state = State.CLOSING;
        return Action.CLOSE;
    }

    private void run(Action action) {
        switch (action) {
            case HEAL -> relay.resumeHook().resume(this, nextOffset());
            case ANNOUNCE -> relay.announceLater(this);
            case CLOSE -> relay.closer().enqueue(this);
            case NONE -> {
            }
        }
    }

    /** GAP_PENDING: announces what was missed before {@code batch} (if anything), then goes live with it. */
    private Outcome offerAfterGap(EventBatch batch) {
        if (batch.lastOffset() < next) {
            return Outcome.SKIPPED;
        }
        if (batch.baseOffset() > next) {
            // Covers the known loss and anything lost since without being named (the batch says where it resumes).
            GapNotice gap = new GapNotice(feed.key.shard(), next, batch.baseOffset() - 1, GapNotice.Reason.RELAY_LAG);
            if (!sink.offer(gap)) {
                return Outcome.STALLED;
            }
            relay.metrics().gap();
            next = batch.baseOffset();
            state = State.LIVE;
            return offerLive(batch);
        }
        // A batch older than the loss (it waited in a backlog or a queue): delivered, and the gap still lies ahead,
        // unless the loss was unknown (then only a batch that starts past next can tell what was missed).
        Outcome out = offerLive(batch);
        if (out == Outcome.DELIVERED && (lostTo == Long.MAX_VALUE || lostTo < next)) {
            state = State.LIVE;
        }
        return out;
    }

    private Outcome offerLive(EventBatch batch) {
        EventBatch part = batch.from(next);
        if (!sink.offer(part)) {
            return Outcome.STALLED;
        }
        next = batch.endOffset();
        relay.metrics().delivered(part.eventCount());
        return Outcome.DELIVERED;
    }

    @Override
    public String toString() {
        return "RelayedSubscription[" + id + " " + feed.key + "]";
    }
}
