package dev.felix.cluster.relay;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The node's one closer of fenced plain subscriptions: at most {@code closesPerWindow} resync closes per
 * {@code closeWindow}, so a loss on a hot shard with thousands of local subscribers becomes a paced trickle of
 * reconnects rather than a storm on the leader's log (the SDK adds full jitter to its resume).
 *
 * <p>Fenced subscriptions wait here already fenced: they receive nothing while they wait, so pacing costs time to
 * reconnect, never correctness. The window starts at the first close after the previous window ended.
 *
 * <p><b>Threads.</b> {@link #enqueue} from any thread; {@link #runDue} from the relay's ticker (one thread).
 */
final class PacedCloser {

    private final int perWindow;
    private final long windowNanos;
    private final LongSupplier nanos;
    private final RelayMetrics metrics;
    private final ArrayDeque<RelayedSubscription> pending = new ArrayDeque<>();
    private boolean windowOpen;
    private long windowStart;
    private int closedInWindow;

    PacedCloser(RelaySettings settings, LongSupplier nanos, RelayMetrics metrics) {
        this.perWindow = settings.closesPerWindow();
        this.windowNanos = settings.closeWindow().toNanos();
        this.nanos = nanos;
        this.metrics = metrics;
    }

    void enqueue(RelayedSubscription s) {
        synchronized (pending) {
            pending.addLast(s);
        }
    }

    int pending() {
        synchronized (pending) {
            return pending.size();
        }
    }

    /** Closes as many waiting subscriptions as this window still allows. @return how many it closed */
    int runDue() {
        List<RelayedSubscription> due = new ArrayList<>();
        synchronized (pending) {
            if (pending.isEmpty()) {
                return 0;
            }
            long now = nanos.getAsLong();
            if (!windowOpen || now - windowStart >= windowNanos) {
                windowOpen = true;
                windowStart = now;
                closedInWindow = 0;
            }
            while (closedInWindow + due.size() < perWindow && !pending.isEmpty()) {
                due.add(pending.pollFirst());
            }
            closedInWindow += due.size();
        }
        int closed = 0;
        for (RelayedSubscription s : due) {
            if (s.closeForResync()) { // false: the subscriber left on its own meanwhile
                closed++;
            }
        }
        metrics.pacedCloses(closed);
        return closed;
    }
}
