package dev.felix.core.writer;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one component's {@link Work} on at most one thread at a time: the component's <em>writer</em>.
 *
 * <p><b>Threads.</b> Any thread may call {@link #post} and {@link #schedule}; everything else, and the
 * {@link Work} itself, runs on the writer. The writer is a task on a shared executor, scheduled when work
 * arrives and never running twice at once (a compare-and-set on the run state decides who schedules it), so
 * many components share a few threads and contention stays inside one component.
 *
 * <p><b>Inline.</b> With {@code inline}, a thread that hands work to an idle writer runs it on the spot when it
 * is an <em>inline thread</em> ({@link #allowInlineOnThisThread()}; a broker marks its QUIC event loops) and the
 * component says a pass is cheap enough right now (a shard: few subscribers). A publish read there is batched,
 * fanned out and acknowledged with no thread hop, which on a small machine is most of what a small message
 * costs (measured in {@code docs/benchmarks.md}, "Fewer thread hand-offs"). Any other thread (a storage flush
 * completing, a timer, replication) still hands the writer to the executor, so a writer never runs on a thread
 * that was not made for it, nor under a caller's lock it cannot know about; and an expensive pass (a fanout to
 * thousands) runs on the executor beside the network thread instead of stalling it.
 *
 * <p><b>Fairness.</b> On an executor each pass ends by handing the next one back to the executor, so other
 * components get their turn; the {@link Work} bounds the size of one pass itself. On an inline thread, passes
 * loop there while work keeps arriving (other threads only queue meanwhile, and the thread's own next read
 * waits for the loop to end).
 *
 * <p><b>Shutdown.</b> When the executor refuses a task (it was shut down), the thread that won the right to
 * run the writer runs it itself, so a closing component still answers everything queued.
 */
public final class WriterLoop {

    private static final Logger LOG = LoggerFactory.getLogger(WriterLoop.class);

    private static final int IDLE = 0;
    private static final int SCHEDULED = 1;

    /** Threads that run inline writers on the spot ({@link #allowInlineOnThisThread()}). */
    private static final ThreadLocal<Boolean> INLINE_THREAD = ThreadLocal.withInitial(() -> Boolean.FALSE);

    /**
     * Marks the calling thread as one that runs {@code inline} writers itself when it hands them work. Called once
     * on each thread, by whoever owns it (a broker: on each of its QUIC event loops); a thread never marked hands
     * writers to their executor.
     */
    public static void allowInlineOnThisThread() {
        INLINE_THREAD.set(Boolean.TRUE);
    }

    /** Whether the calling thread runs inline writers itself. */
    public static boolean inlineThread() {
        return INLINE_THREAD.get();
    }

    /** What the writer does. Runs on the writer, except {@link #hasWork()} (see there). */
    public interface Work {
        /** One bounded pass. Control tasks queued before the pass have already run. */
        void runOnce();

        /**
         * Whether another pass should follow now. Called by the thread that just ran a pass, <em>after</em> the
         * writer went idle (so work a producer queued meanwhile is never missed): it must read the concurrent
         * queues afresh; writer-owned fields it reads were last written by this same thread unless another
         * writer pass has started since, and that pass then decides for itself.
         */
        boolean hasWork();

        /** A pass threw: end whatever depends on this component. The loop carries on afterwards. */
        void failed(Throwable cause);
    }

    private final String label;
    private final Executor executor;
    /** Whether a pass may run inline now (asked on inline threads only). */
    private final BooleanSupplier inline;
    private final ConcurrentLinkedQueue<Runnable> control = new ConcurrentLinkedQueue<>();
    private final AtomicInteger state = new AtomicInteger(IDLE);
    private Work work;
    /** The thread running the writer right now (null when idle): lets a callback tell it is on the writer. */
    private volatile Thread writerThread;

    /**
     * @param label    names the component in logs
     * @param executor runs writer passes (shared by many components)
     * @param inline   run passes on the thread that hands work to an idle writer instead, when that is an inline
     *                 thread ({@link #allowInlineOnThisThread()})
     */
    public WriterLoop(String label, Executor executor, boolean inline) {
        this(label, executor, inline ? () -> true : () -> false);
    }

    /**
     * @param label    names the component in logs
     * @param executor runs writer passes (shared by many components)
     * @param inline   asked (on an inline thread, by whichever thread schedules) whether the next pass may run on
     *                 that thread; any thread may call it, so it must read only what is safe to read anywhere
     */
    public WriterLoop(String label, Executor executor, BooleanSupplier inline) {
        this.label = label;
        this.executor = executor;
        this.inline = inline;
    }

    /** Sets the work; once, before anything is scheduled. */
    public void start(Work work) {
        if (this.work != null) {
            throw new IllegalStateException("the writer of " + label + " already has its work");
        }
        this.work = work;
    }

    /** Queues {@code task} to run on the writer before its next pass, and schedules the writer. Any thread. */
    public void post(Runnable task) {
        control.add(task);
        schedule();
    }

    /** Makes sure a pass runs soon (now, inline on an inline thread). Any thread. */
    public void schedule() {
        if (!state.compareAndSet(IDLE, SCHEDULED)) {
            return;
        }
        if (runsHere()) {
            runLoop();
            return;
        }
        try {
            executor.execute(this::runLoop);
        } catch (RejectedExecutionException e) {
            runLoop(); // shut down: this caller won the CAS, so it owns the writer
        }
    }

    /** Runs the queued control tasks; writer only. Work calls this between long steps of a pass. */
    public void runControlTasks() {
        Runnable task;
        while ((task = control.poll()) != null) {
            task.run();
        }
    }

    /** Whether the calling thread is running this writer right now. */
    public boolean inWriter() {
        return writerThread == Thread.currentThread();
    }

    public String label() {
        return label;
    }

    /** Whether the calling thread runs the next pass itself: an inline thread, and the component agrees. */
    private boolean runsHere() {
        return INLINE_THREAD.get() && inline.getAsBoolean();
    }

    private void runLoop() {
        while (true) {
            writerThread = Thread.currentThread();
            try {
                runControlTasks();
                work.runOnce();
            } catch (Throwable t) {
                LOG.error("the writer of {} failed", label, t);
                try {
                    work.failed(t);
                } catch (Throwable t2) {
                    LOG.error("the writer of {} failed while ending its work", label, t2);
                }
            } finally {
                writerThread = null;
            }
            state.set(IDLE);
            boolean more = !control.isEmpty() || work.hasWork();
            if (!more || !state.compareAndSet(IDLE, SCHEDULED)) {
                return;
            }
            if (!runsHere()) {
                try {
                    executor.execute(this::runLoop);
                    return;
                } catch (RejectedExecutionException e) {
                    // shutting down: keep going on this thread
                }
            }
        }
    }
}
