package dev.felix.cluster.replication;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time, in order, on a shared pool: the single writer of one replica log. A task that
 * throws is logged and the lane goes on.
 *
 * <p><b>Threads.</b> {@link #execute} from any thread.
 */
final class SerialLane implements Executor {

    private static final Logger LOG = LoggerFactory.getLogger(SerialLane.class);

    private final Executor pool;
    private final String name;
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private boolean running;

    SerialLane(Executor pool, String name) {
        this.pool = pool;
        this.name = name;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (tasks) {
            tasks.addLast(task);
            if (running) {
                return;
            }
            running = true;
        }
        pool.execute(this::drain);
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (tasks) {
                next = tasks.pollFirst();
                if (next == null) {
                    running = false;
                    return;
                }
            }
            try {
                next.run();
            } catch (RuntimeException e) {
                LOG.error("replica task of {} failed", name, e);
            }
        }
    }
}
