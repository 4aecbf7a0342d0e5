package dev.felix.cluster.metadata;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands each applied state to the listeners, in commit order, on one listener thread, without ever holding up
 * the Raft updater thread. The queue between them ("listener backlog") is bounded: when more than
 * {@code backlog} states wait, the ones between the state being delivered and the newest are dropped (the
 * listeners get the newest next: it contains every dropped change), the drop is counted and logged. A state is
 * an immutable value, so a skipped one loses nothing a listener could not read from the newer one.
 *
 * <p><b>Threads.</b> {@link #offer} from any thread (the updater thread); {@code deliver} runs on
 * {@code executor}, one state at a time.
 */
final class ChangeNotifier {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeNotifier.class);

    private final Executor executor;
    private final Consumer<ClusterState> deliver;
    private final int backlog;
    private final ArrayDeque<ClusterState> pending = new ArrayDeque<>();
    private final LongAdder coalesced = new LongAdder();

    ChangeNotifier(Executor executor, Consumer<ClusterState> deliver, int backlog) {
        if (backlog < 2) {
            throw new IllegalArgumentException("backlog must be at least 2, was " + backlog);
        }
        this.executor = executor;
        this.deliver = deliver;
        this.backlog = backlog;
    }

    void offer(ClusterState state) {
        boolean schedule;
        synchronized (pending) {
            schedule = pending.isEmpty();
            pending.addLast(state);
            if (pending.size() > backlog) {
                // Keep the head (the listener thread may be delivering it now) and the newest.
                int skipped = pending.size() - 2;
                ClusterState head = pending.pollFirst();
                ClusterState newest = pending.peekLast();
                pending.clear();
                pending.addLast(head);
                pending.addLast(newest);
                coalesced.add(skipped);
                LOG.warn("cluster listeners fell {} changes behind; delivering the newest state (version {}) next",
                        skipped, newest.version());
            }
        }
        if (schedule) {
            try {
                executor.execute(this::drain);
            } catch (RejectedExecutionException closing) {
                // closed: nobody to tell
            }
        }
    }

    /** States skipped because the listeners fell more than the backlog behind. */
    long coalesced() {
        return coalesced.sum();
    }

    private void drain() {
        while (true) {
            ClusterState s;
            synchronized (pending) {
                s = pending.peekFirst();
                if (s == null) {
                    return;
                }
            }
            try {
                deliver.accept(s);
            } catch (RuntimeException e) {
                LOG.warn("delivering cluster metadata version {} failed", s.version(), e);
            }
            synchronized (pending) {
                pending.pollFirst();
                if (pending.isEmpty()) {
                    return;
                }
            }
        }
    }
}
