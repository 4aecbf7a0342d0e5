package dev.felix.storage;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A clock tests move by hand. Thread-safe. */
final class MutableClock extends Clock {
    private final AtomicReference<Instant> now;

    MutableClock(final Instant start) {
        this.now = new AtomicReference<>(start);
    }

    void advance(final Duration d) {
        now.updateAndGet(i -> i.plus(d));
    }

    long micros() {
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
}
