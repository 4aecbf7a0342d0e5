package dev.felix.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock tests move by hand: time stands still until {@link #advance} moves it, so TTLs, retention by age
 * and record timestamps are exact and independent of how fast the machine runs the test.
 *
 * <p>Thread-safe: the code under test reads it on its own threads while the test thread advances it; every
 * read sees the latest {@link #advance} that happened before it. Zone: UTC ({@link #withZone} returns this
 * clock, so a zone change cannot detach a copy from the test's hand).
 */
public final class ManualClock extends Clock {

    /** Where a clock made with {@link #ManualClock()} starts. */
    public static final Instant DEFAULT_START = Instant.parse("2026-01-01T00:00:00Z");

    private final AtomicReference<Instant> now;

    /** A clock at {@link #DEFAULT_START}. */
    public ManualClock() {
        this(DEFAULT_START);
    }

    public ManualClock(final Instant start) {
        this.now = new AtomicReference<>(start);
    }

    /** Moves the clock forward (or back, for a negative {@code d}) by {@code d}. */
    public void advance(final Duration d) {
        now.updateAndGet(i -> i.plus(d));
    }

    /** The current time in microseconds since the epoch (the unit of log record timestamps). */
    public long micros() {
        final Instant i = now.get();
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(final ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public long millis() {
        return now.get().toEpochMilli();
    }
}
