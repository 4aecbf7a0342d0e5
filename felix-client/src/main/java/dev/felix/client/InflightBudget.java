package dev.felix.client;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Checkpoint {@code client_publish_queue}: events and bytes a publisher has handed over but the broker has
 * not yet acknowledged (or, unacknowledged, that are not yet written). Past either limit, a publish waits
 * ({@link ReceivePolicy#BLOCK}) or is refused ({@link ReceivePolicy#DROP_NEW}); one publish larger than
 * the whole budget is let through when nothing else is in flight.
 *
 * <p><b>Threads and buffers.</b> Thread-safe: publishing threads acquire (and may wait) and the event loop
 * releases as acknowledgements and writes complete; a lock guards both counters. Touches no {@code ByteBuf}s.
 */
final class InflightBudget {

    private final long maxBytes;
    private final long maxEvents;
    private final ClientMetrics metrics;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    private long bytes;
    private long events;

    InflightBudget(long maxBytes, long maxEvents, ClientMetrics metrics) {
        this.maxBytes = maxBytes;
        this.maxEvents = maxEvents;
        this.metrics = metrics;
    }

    /**
     * Takes room for {@code n} events of {@code size} bytes, waiting up to {@code timeoutNanos} (0: do not
     * wait). Returns false if there was no room in time.
     */
    boolean acquire(long size, int n, long timeoutNanos) throws InterruptedException {
        lock.lock();
        try {
            long remaining = timeoutNanos;
            boolean waited = false;
            while (events > 0 && (bytes + size > maxBytes || events + n > maxEvents)) {
                if (!waited) {
                    metrics.publishQueueBlocked.increment();
                    waited = true;
                }
                if (remaining <= 0) {
                    return false;
                }
                remaining = released.awaitNanos(remaining);
            }
            bytes += size;
            events += n;
            return true;
        } finally {
            lock.unlock();
        }
    }

    void release(long size, int n) {
        lock.lock();
        try {
            bytes -= size;
            events -= n;
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    static long nanos(java.time.Duration d) {
        return TimeUnit.NANOSECONDS.convert(d);
    }
}
