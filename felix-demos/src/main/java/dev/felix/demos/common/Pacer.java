package dev.felix.demos.common;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Open-loop pacing of a publisher at a target rate, as upstream's demos do it: at 1,000/s and above a
 * 1 ms tick carrying several messages; below, one message per tick of {@code 1/rate} seconds.
 *
 * <p>Unlike upstream ({@code per_tick = rate / 1000}, which turns 1,500/s into 1,000/s), the count
 * per 1 ms tick is spread so that tick {@code k} ends at exactly {@code (k+1) * rate / 1000}
 * messages: every rate is honoured.
 *
 * <p>What happens to ticks the publisher missed (because publishing blocked) is the demo's choice:
 * {@link Missed#BURST} fires them all at once as soon as it can (state divergence: the change stream is
 * a fixed sequence of writes); {@link Missed#SKIP} drops them (slow-consumer: a throttled publisher
 * loses throughput, which is what that demo measures).
 */
public final class Pacer {

    /** What to do with ticks that passed while the publisher was busy. */
    public enum Missed {
        /** Fire every missed tick, back to back. */
        BURST,
        /** Forget missed ticks; continue at the next tick boundary. */
        SKIP
    }

    /** Longest single park, so a stop request is noticed quickly even at very low rates. */
    private static final long MAX_PARK_NANOS = 50_000_000L;

    private final long rate;
    private final Missed missed;
    private final long tickNanos;
    private final boolean perMillisecond;
    private long start = -1;
    /** Index of the next tick to fire. */
    private long nextTick;

    public Pacer(long rate, Missed missed) {
        if (rate < 1) {
            throw new IllegalArgumentException("rate must be at least 1, was " + rate);
        }
        this.rate = rate;
        this.missed = missed;
        this.perMillisecond = rate >= 1000;
        this.tickNanos = perMillisecond ? 1_000_000L : 1_000_000_000L / rate;
    }

    /** Length of one tick in nanoseconds. */
    public long tickNanos() {
        return tickNanos;
    }

    /**
     * Waits for the next tick (the first fires at once) and returns how many messages to publish in
     * it; returns -1 once {@code stop} is true.
     */
    public int awaitTick(BooleanSupplier stop) {
        long now = System.nanoTime();
        if (start < 0) {
            start = now;
        }
        long deadline = start + nextTick * tickNanos;
        while (now - deadline < 0) {
            if (stop.getAsBoolean()) {
                return -1;
            }
            LockSupport.parkNanos(Math.min(deadline - now, MAX_PARK_NANOS));
            now = System.nanoTime();
        }
        if (stop.getAsBoolean()) {
            return -1;
        }
        long tick = nextTick;
        if (missed == Missed.SKIP) {
            // Late by one tick or more: fire now for the current slot and forget the ones in between.
            long current = (now - start) / tickNanos;
            if (current > tick) {
                tick = current;
            }
        }
        nextTick = tick + 1;
        return countFor(tick);
    }

    /**
     * Like {@link #awaitTick}, then also takes the later ticks that are already due, up to about
     * {@code maxMessages} (whole ticks), so their messages go out together. Meant for {@link Missed#BURST}:
     * a publisher that waits for the broker on every write still keeps its rate when one write takes longer
     * than a tick, because the next write carries every tick it missed instead of one.
     */
    public int awaitDue(BooleanSupplier stop, int maxMessages) {
        int n = awaitTick(stop);
        if (n < 0) {
            return n;
        }
        long now = System.nanoTime();
        while (n < maxMessages && now - (start + nextTick * tickNanos) >= 0) {
            n += countFor(nextTick++);
        }
        return n;
    }

    /** Messages in tick {@code k}: the difference of the cumulative totals, so the rate is exact. */
    int countFor(long k) {
        if (!perMillisecond) {
            return 1;
        }
        return (int) ((k + 1) * rate / 1000 - k * rate / 1000);
    }
}
