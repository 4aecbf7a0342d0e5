package dev.felix.cluster.relay;

import dev.felix.core.stream.EventBatch;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * Routes received batches to the workers, and does nothing else: no delivery, no I/O, so it keeps up with any
 * source a worker can.
 *
 * <p>A source hands each batch to {@link #receive}, which stamps the time this node received it (the start of its
 * delivery deadline) and puts it in the bounded backlog; the dispatcher's lane takes batches from the backlog in
 * order and offers each to its shard's worker. Two losses are found here:
 * <ul>
 *   <li><b>a full worker queue</b>: known loss of that batch; its shard's subscriptions are fenced;</li>
 *   <li><b>a full backlog</b>: the dispatcher fell behind its source. The batch the source could not hand over
 *       and whatever the source goes on skipping while the backlog stays full are not routed by shard anywhere
 *       the relay could name them from, so it is unknown loss: every subscription of the relay is fenced.</li>
 * </ul>
 * A batch that starts past the end of the last one routed for its shard (the source itself skipped, e.g. the
 * leader's queue for this relay overflowed) is a known loss of the missing offsets, fenced here at once.
 *
 * <p><b>Threads.</b> {@link #receive} from any source thread; routing state belongs to the lane.
 */
final class Dispatcher {

    private final Relay relay;
    private final RelayWorker[] workers;
    private final int capacity;
    private final long deadlineNanos;
    private final LongSupplier nanos;
    private final ArrayDeque<Routed> backlog;
    private final Lane lane;

    Dispatcher(Relay relay, RelayWorker[] workers, RelaySettings settings, LongSupplier nanos, Executor executor) {
        this.relay = relay;
        this.workers = workers;
        this.capacity = settings.dispatcherBacklog();
        this.deadlineNanos = settings.deadlineNanos();
        this.nanos = nanos;
        this.backlog = new ArrayDeque<>(Math.min(capacity, 4096));
        this.lane = new Lane(executor, this::work, "dispatcher");
    }

    /** @return false when the backlog was full (the relay has fenced every subscription) */
    boolean receive(ShardFeed feed, EventBatch batch) {
        long now = nanos.getAsLong();
        boolean full;
        synchronized (backlog) {
            full = backlog.size() >= capacity;
            if (!full) {
                backlog.addLast(new Routed(feed, batch, now, now + deadlineNanos));
            }
        }
        if (full) {
            relay.unknownLoss(feed, batch);
            return false;
        }
        lane.signal();
        return true;
    }

    /** How long the oldest batch not yet routed has waited, in nanoseconds (0 when none waits). */
    long lagNanos() {
        long now = nanos.getAsLong();
        synchronized (backlog) {
            Routed oldest = backlog.peekFirst();
            return oldest == null ? 0 : Math.max(0, now - oldest.receivedNanos());
        }
    }

    int backlog() {
        synchronized (backlog) {
            return backlog.size();
        }
    }

    private void work() {
        while (true) {
            Routed r;
            synchronized (backlog) {
                r = backlog.pollFirst();
            }
            if (r == null) {
                return;
            }
            route(r);
        }
    }

    private void route(Routed r) {
        ShardFeed feed = r.feed();
        EventBatch batch = r.batch();
        if (feed.routedEnd >= 0) {
            if (batch.endOffset() <= feed.routedEnd) {
                return; // a batch routed already (a source that resent after reconnecting)
            }
            if (batch.baseOffset() > feed.routedEnd) {
                relay.sourceSkipped(feed, batch.baseOffset() - 1);
            }
        }
        feed.routedEnd = batch.endOffset();
        if (!workers[feed.worker].offer(r)) {
            relay.lost(feed, batch, RelayMetrics.Drop.QUEUE_FULL);
        }
    }
}
