package dev.felix.cluster.relay;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * One delivery worker: a bounded queue of routed batches, delivered in order to their shards' subscriptions.
 *
 * <h2>Deadline</h2>
 * Every batch must be delivered before its deadline ({@link Routed#deadlineNanos()}), whether it waited in the
 * queue, behind a backlog or in a stalled write. The worker never blocks: a sink that cannot take the batch
 * leaves the subscription <em>waiting</em>, and the worker holds the batch at its head (later batches of every
 * shard on this worker wait behind it: the order of one shard must hold, and a per-subscription backlog would be
 * unbounded) until the sink is writable again ({@link RelayedSubscription#writable()}) or the next relay tick.
 * At the deadline the write is cut off: the subscriptions still waiting lost the batch and are fenced, and the
 * worker moves on. A batch taken from the queue at or past its deadline is lost for every recipient unread.
 *
 * <p><b>Threads.</b> {@link #offer} from the dispatcher; {@link #signal} from any thread; the delivery state
 * (head, waiting) belongs to the worker's lane.
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

    // Lane state.
    private Routed head;
    /** The subscriptions that still need {@link #head}; null until the head's first pass. */
    private RelayedSubscription[] waiting;

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

    /** Batches queued, not counting one being delivered. */
    int depth() {
        synchronized (queue) {
            return queue.size();
        }
    }

    int index() {
        return index;
    }

    private void work() {
        while (true) {
            if (head == null) {
                synchronized (queue) {
                    head = queue.pollFirst();
                }
                if (head == null) {
                    return;
                }
                waiting = null;
            }
            Routed r = head;
            RelayedSubscription[] targets = waiting != null ? waiting : r.feed().subscriptions();
            if (r.expired(nanos.getAsLong())) {
                lose(r, targets);
                head = null;
                continue;
            }
            List<RelayedSubscription> stalled = null;
            for (int i = 0; i < targets.length; i++) {
                if (i % CLOCK_EVERY == CLOCK_EVERY - 1 && r.expired(nanos.getAsLong())) {
                    stalled = stalled == null ? new ArrayList<>() : stalled;
                    for (int j = i; j < targets.length; j++) {
                        stalled.add(targets[j]);
                    }
                    break;
                }
                if (targets[i].deliver(r.batch()) == RelayedSubscription.Outcome.STALLED) {
                    stalled = stalled == null ? new ArrayList<>() : stalled;
                    stalled.add(targets[i]);
                }
            }
            if (stalled == null) {
                metrics.lag(nanos.getAsLong() - r.receivedNanos());
                head = null;
                continue;
            }
            waiting = stalled.toArray(new RelayedSubscription[0]);
            if (r.expired(nanos.getAsLong())) {
                continue; // cut off now rather than at the next signal
            }
            return; // a sink stalled: writable() or the next tick brings the worker back
        }
    }

    /** {@code r} reached its deadline before {@code targets} got it: they lost it. */
    private void lose(Routed r, RelayedSubscription[] targets) {
        if (!r.feed().kind.fencesOnLoss()) {
            metrics.dropped(RelayMetrics.Drop.EPHEMERAL, r.batch().eventCount());
            return;
        }
        metrics.dropped(RelayMetrics.Drop.STALE, r.batch().eventCount());
        for (RelayedSubscription s : targets) {
            s.fence(r.batch().lastOffset());
        }
    }
}
