package dev.felix.client;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Retry pacing with full jitter: attempt {@code n} waits a uniformly random time in
 * {@code [0, min(cap, base * 2^n)]}, so clients that lost the same leader at the same moment do not come
 * back to the next one in step. Stateless; any thread.
 */
final class Backoff {
    static final long BASE_MILLIS = 50;
    /**
     * The longest wait. A failover makes every client of the lost node retry until a replica is promoted (a
     * failure timeout, 3 s by default): with a 2 s cap a client then still slept 1 s on average, and up to 2 s,
     * after the shard was back. 500 ms keeps that under half a second while full jitter still spreads the
     * retries of many clients.
     */
    static final long CAP_MILLIS = 500;

    private Backoff() {
    }

    /** How long attempt {@code attempt} (0-based) waits, in milliseconds. */
    static long delayMillis(int attempt) {
        long ceiling = Math.min(CAP_MILLIS, BASE_MILLIS << Math.min(attempt, 20));
        return ThreadLocalRandom.current().nextLong(ceiling + 1);
    }

    /**
     * Sleeps for attempt {@code attempt}, but never past {@code deadlineNanos}; false if the deadline has
     * passed (or the thread was interrupted) and the caller should give up.
     */
    static boolean pause(int attempt, long deadlineNanos) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            return false;
        }
        long sleep = Math.min(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(delayMillis(attempt)), left);
        try {
            java.util.concurrent.TimeUnit.NANOSECONDS.sleep(sleep); // pacing a retry is the point: nothing to await
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
