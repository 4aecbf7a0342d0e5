package dev.felix.client;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that run subscription handlers: a queue of ready turns and at most one drainer per thread.
 *
 * <p><b>Why not one executor task per turn:</b> at high fanout one event makes thousands of subscriptions ready at
 * once (10,000 subscribers of one stream: 10,000 turns per event). An executor task each means a locked queue
 * offer and often a thread wake-up each, which cost more than the handlers themselves. Here a turn is a lock-free
 * queue offer; a thread is woken only while fewer than {@code size} drainers run, and a running drainer takes
 * every queued turn before it stops.
 *
 * <p><b>Threads.</b> {@link #execute} from any thread (event loops); turns run on the pool's threads, one turn at a
 * time per drainer, in the order they were queued.
 */
final class HandlerPool implements AutoCloseable {

    private final ExecutorService threads;
    private final int size;
    private final ConcurrentLinkedQueue<Runnable> ready = new ConcurrentLinkedQueue<>();
    /** Drainers started and not yet stopped; at most {@link #size}. */
    private final AtomicInteger drainers = new AtomicInteger();
    private final Runnable drain = this::drain;

    /** {@code size} threads named {@code prefix1, prefix2, ...}. */
    HandlerPool(int size, String prefix) {
        AtomicInteger n = new AtomicInteger();
        this.size = size;
        this.threads = Executors.newFixedThreadPool(size, r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Queues one turn; starts a drainer if fewer than one per thread run.
     *
     * @throws RejectedExecutionException after {@link #close()}
     */
    void execute(Runnable turn) {
        if (threads.isShutdown()) {
            throw new RejectedExecutionException("the handler threads are shut down");
        }
        ready.offer(turn);
        if (claimDrainer()) {
            try {
                threads.execute(drain);
            } catch (RejectedExecutionException e) {
                drainers.decrementAndGet();
                throw e;
            }
        }
    }

    private boolean claimDrainer() {
        int n;
        while ((n = drainers.get()) < size) {
            if (drainers.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        return false;
    }

    private void drain() {
        while (true) {
            Runnable turn = ready.poll();
            if (turn == null) {
                drainers.decrementAndGet();
                // A turn queued after the poll may have found every drainer busy: take it, unless another drainer
                // started meanwhile and will.
                if (ready.isEmpty() || !claimDrainer()) {
                    return;
                }
                continue;
            }
            try {
                turn.run();
            } catch (RuntimeException | Error e) { // a turn handles its handler's failures; this is a last resort
                Thread t = Thread.currentThread();
                t.getUncaughtExceptionHandler().uncaughtException(t, e);
            }
        }
    }

    @Override
    public void close() {
        threads.shutdown();
    }
}
