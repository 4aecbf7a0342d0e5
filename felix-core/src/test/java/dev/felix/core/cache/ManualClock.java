package dev.felix.core.cache;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A clock tests move by hand. Thread-safe. */
final class ManualClock extends Clock {
    private final AtomicReference<Instant> now;

    ManualClock(Instant start) {
        this.now = new AtomicReference<>(start);
    }

    ManualClock() {
        this(Instant.parse("2026-01-01T00:00:00Z"));
    }

    void advance(Duration d) {
        now.updateAndGet(i -> i.plus(d));
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return now.get();
    }
}
