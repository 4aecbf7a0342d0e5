package dev.felix.cluster.relay;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * One delivery worker: a bounded queue of routed batches, delivered in order to their shards' subscriptions.
 *
 * <h2>Deadline and stalled writes</h2>
 * Every batch must be delivered before its deadline ({@code received + deadline}), whether it waited in this queue,
 * behind a backlog or in a stalled write. The worker never blocks, and one slow subscriber holds back nobody else:
 * a sink that cannot take a batch leaves that subscription <em>stalled</em>, with a backlog of the batches it still
 * needs, in order (at most {@code queueBatches}; one more is a {@code queue_full} loss for it). The worker goes on
 * with every other subscription and shard, and offers the backlog again when the sink is writable
 * ({@link RelayedSubscription#writable()}) or at the next relay tick. A backlog batch that reaches its deadline is
 * cut off: the subscription lost it and is fenced, and never gets it late. A batch taken from the queue at or past
 * its deadline is lost for every recipient unread.
 *
 * <p>Losses are counted in {@code felix_relay_dropped_total} once per batch, however many subscriptions lost it.
 *
 * <p><b>Threads.</b> {@link #offer} from the dispatcher; {@link #signal} from any thread; the stalled set and every
 * subscription's backlog belong to the worker's lane.
 */
final class RelayWorker {

    /** How many subscriptions are offered a batch between two looks at the clock. */
    private static final int CLOCK_EVERY = 64;

    private final int index;
    private final int capacity;
    private final ArrayDeque<Routed> queue;
    private final LongSupplier nanos;
    private final RelayMetrics metrics;
    private final Lane lane;

    /** Subscriptions with a backlog or an announcement their sink refused, in the order they stalled. Lane state. */
    private final ArrayDeque<RelayedSubscription> stalled = new ArrayDeque<>();
    /** Fenced gap-capable subscriptions whose gap is to be announced; any thread adds. */
    private final java.util.concurrent.ConcurrentLinkedQueue<RelayedSubscription> toAnnounce =
            new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** Something waits for time (a stalled subscription): the relay's tick must wake this worker. */
    private volatile boolean waitsForTime;

    RelayWorker(int index, int capacity, LongSupplier nanos, RelayMetrics metrics, Executor executor) {
        this.index = index;
        this.capacity = capacity;
        this.queue = new ArrayDeque<>(Math.min(capacity, 1024));
        this.nanos = nanos;
        this.metrics = metrics;
        this.lane = new Lane(executor, this::work, "worker " + index);
    }

    /** Queues {@code r}; false when the queue is full (the batch is lost: the caller fences its recipients). */
    boolean offer(Routed r) {
        synchronized (queue) {
            if (queue.size() >= capacity) {
                return false;
            }
            queue.addLast(r);
        }
        lane.signal();
        return true;
    }

    void signal() {
        lane.signal();
    }

    /** The relay's tick: wakes the worker only if a stalled write may have to be cut off (or retried). */
    void tick() {
        if (waitsForTime) {
            lane.signal();
        }
    }

    /** Announces {@code s}'s gap from the lane, after what it still has to offer before it. Any thread. */
    void announce(RelayedSubscription s) {
        if (s.announceQueued.compareAndSet(false, true)) {
            toAnnounce.add(s);
        }
        lane.signal();
    }

    /** Batches queued, not counting subscriptions' backlogs. */
    int depth() {
        synchronized (queue) {
            return queue.size();
        }
    }

    int index() {
        return index;
    }

    private void work() {
        retryStalled();
        RelayedSubscription a;
        while ((a = toAnnounce.poll()) != null) {
            a.announceQueued.set(false);
            if (!a.inStalled && a.announceGap() == RelayedSubscription.Outcome.STALLED) {
                stall(a); // its sink is full: announced when it drains (a stalled one announces after its backlog)
            }
        }
        while (true) {
            Routed r;
            synchronized (queue) {
                r = queue.pollFirst();
            }
            if (r == null) {
                break;
            }
            deliver(r);
        }
        waitsForTime = !stalled.isEmpty();
    }

    /** Offers every stalled subscription its backlog again; cuts off what reached its deadline. */
    private void retryStalled() {
        long now = nanos.getAsLong();
        for (Iterator<RelayedSubscription> it = stalled.iterator(); it.hasNext(); ) {
            RelayedSubscription s = it.next();
            if (drainBacklog(s, now)) {
                s.inStalled = false;
                it.remove();
            }
        }
    }

    private void stall(RelayedSubscription s) {
        if (!s.inStalled) {
            s.inStalled = true;
            stalled.addLast(s);
        }
    }

    /** First pass of a batch over its shard's subscriptions. */
    private void deliver(Routed r) {
        RelayedSubscription[] targets = r.feed().subscriptions();
        long now = nanos.getAsLong();
        if (r.expired(now)) {
            for (RelayedSubscription s : targets) {
                lose(r, s); // a stalled one's backlog ends in a fenced state: drainBacklog skips it later
            }
            return;
        }
        for (int i = 0; i < targets.length; i++) {
            if (i % CLOCK_EVERY == CLOCK_EVERY - 1) {
                now = nanos.getAsLong();
                if (r.expired(now)) {
                    for (int j = i; j < targets.length; j++) {
                        lose(r, targets[j]);
                    }
                    break;
                }
            }
            RelayedSubscription s = targets[i];
            if (s.backlog != null && !s.backlog.isEmpty()) {
                // Behind its own stalled write: it keeps its order, and nobody else waits for it.
                if (s.backlog.size() >= capacity) {
                    if (s.healing()) {
                        // Keep the newest: the replay reads what is let go of, and must now reach past it.
                        s.heldDropped(s.backlog.pollFirst().batch().endOffset());
                        s.backlog.addLast(r);
                    } else {
                        countLoss(r, RelayMetrics.Drop.QUEUE_FULL);
                        s.fence(r.batch().lastOffset());
                    }
                } else {
                    s.backlog.addLast(r);
                }
                continue;
            }
            if (s.deliver(r.batch()) == RelayedSubscription.Outcome.STALLED) {
                if (s.backlog == null) {
                    s.backlog = new ArrayDeque<>();
                }
                s.backlog.addLast(r);
                stall(s);
            }
        }
        metrics.lag(nanos.getAsLong() - r.receivedNanos());
    }

    /**
     * Offers {@code s} its backlog in order, then the gap it is fenced for, if any.
     *
     * @return whether nothing is left to offer
     */
    private boolean drainBacklog(RelayedSubscription s, long now) {
        ArrayDeque<Routed> backlog = s.backlog;
        while (backlog != null && !backlog.isEmpty()) {
            Routed r = backlog.peekFirst();
            if (r.expired(now)) {
                backlog.pollFirst(); // cut off: a gap-capable subscription may still get what follows, after a gap
                lose(r, s);
                continue;
            }
            if (s.deliver(r.batch()) == RelayedSubscription.Outcome.STALLED) {
                return false;
            }
            backlog.pollFirst();
        }
        return s.announceGap() != RelayedSubscription.Outcome.STALLED;
    }

    /** {@code s} did not get {@code r} before its deadline. */
    private void lose(Routed r, RelayedSubscription s) {
        if (s.healing()) {
            s.heldDropped(r.batch().endOffset()); // cut off: the replay reads it from the log instead
            return;
        }
        if (!r.feed().kind.fencesOnLoss()) {
            countLoss(r, RelayMetrics.Drop.EPHEMERAL);
            return;
        }
        if (s.nextOffset() <= r.batch().lastOffset()) {
            countLoss(r, RelayMetrics.Drop.STALE);
        }
        s.fence(r.batch().lastOffset());
    }

    private void countLoss(Routed r, RelayMetrics.Drop reason) {
        if (!r.lossCounted) {
            r.lossCounted = true;
            metrics.dropped(reason, r.batch().eventCount());
        }
    }
}
