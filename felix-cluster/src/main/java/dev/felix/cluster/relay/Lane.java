package dev.felix.cluster.relay;

import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one piece of work on a shared executor, never on two threads at once: a signal while it runs makes it
 * run again afterwards, signals while it is scheduled merge. The work drains whatever is pending and returns,
 * so a lane holds a pool thread only while it has something to do.
 *
 * <p><b>Threads.</b> {@link #signal()} from any thread. The monitor gives each run a happens-before edge to the
 * next, so the work may keep plain fields.
 */
final class Lane {

    private static final Logger LOG = LoggerFactory.getLogger(Lane.class);

    private final Executor executor;
    private final Runnable work;
    private final String name;
    private boolean running;
    private boolean again;

    Lane(Executor executor, Runnable work, String name) {
        this.executor = executor;
        this.work = work;
        this.name = name;
    }

    void signal() {
        synchronized (this) {
            if (running) {
                again = true;
                return;
            }
            running = true;
        }
        executor.execute(this::run);
    }

    private void run() {
        while (true) {
            try {
                work.run();
            } catch (RuntimeException e) {
                LOG.error("relay {} failed; it goes on with the next item", name, e);
            }
            synchronized (this) {
                if (!again) {
                    running = false;
                    return;
                }
                again = false;
            }
        }
    }
}
