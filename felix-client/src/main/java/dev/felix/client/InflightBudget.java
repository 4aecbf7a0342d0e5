package dev.felix.client;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Checkpoint {@code client_publish_queue}: bytes a publisher has handed over but the broker has not yet
 * acknowledged (or, unacknowledged, that are not yet written). Publishing past the limit waits; one
 * publish larger than the whole budget is let through when nothing else is in flight.
 */
final class InflightBudget {

    private final long limit;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    private long used;
    private long waits;

    InflightBudget(long limit) {
        this.limit = limit;
    }

    /** Takes {@code bytes}, waiting up to {@code timeoutNanos}; returns false on timeout. */
    boolean acquire(long bytes, long timeoutNanos) throws InterruptedException {
        lock.lock();
        try {
            long remaining = timeoutNanos;
            boolean waited = false;
            while (used > 0 && used + bytes > limit) {
                if (!waited) {
                    waits++;
                    waited = true;
                }
                if (remaining <= 0) {
                    return false;
                }
                remaining = released.awaitNanos(remaining);
            }
            used += bytes;
            return true;
        } finally {
            lock.unlock();
        }
    }

    void release(long bytes) {
        lock.lock();
        try {
            used -= bytes;
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Times a publisher had to wait for room. */
    long waits() {
        lock.lock();
        try {
            return waits;
        } finally {
            lock.unlock();
        }
    }

    static long nanos(java.time.Duration d) {
        return TimeUnit.NANOSECONDS.convert(d);
    }
}
