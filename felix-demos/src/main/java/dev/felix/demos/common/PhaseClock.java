package dev.felix.demos.common;

import java.util.concurrent.locks.LockSupport;

/**
 * The demos' control-loop clock: a tick every 500 ms (the first at once), and the elapsed time in
 * whole seconds (truncated), which is what upstream's phase schedule is keyed on.
 */
public final class PhaseClock {

    public static final long TICK_NANOS = 500_000_000L;

    private final long started = System.nanoTime();
    private long ticks;

    /** Whole seconds since the clock started. */
    public long elapsedSeconds() {
        return (System.nanoTime() - started) / 1_000_000_000L;
    }

    public long elapsedNanos() {
        return System.nanoTime() - started;
    }

    /** Waits for the next 500 ms tick (the first returns at once); missed ticks fire back to back. */
    public void awaitTick() {
        long deadline = started + ticks * TICK_NANOS;
        long now;
        while ((now = System.nanoTime()) - deadline < 0) {
            LockSupport.parkNanos(deadline - now);
        }
        ticks++;
    }
}
