package dev.felix.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ManualClockTest {

    @Test
    void standsStillUntilAdvanced_thenMovesByExactlyThat() {
        ManualClock clock = new ManualClock(Instant.parse("2026-03-01T10:00:00Z"));
        Instant before = clock.instant();

        assertThat(clock.instant()).isEqualTo(before);
        clock.advance(Duration.ofMinutes(61).plusNanos(1_500));

        assertThat(clock.instant()).isEqualTo(Instant.parse("2026-03-01T11:01:00.000001500Z"));
        assertThat(clock.millis()).isEqualTo(Instant.parse("2026-03-01T11:01:00Z").toEpochMilli());
        assertThat(clock.micros()).isEqualTo(Instant.parse("2026-03-01T11:01:00Z").getEpochSecond() * 1_000_000L + 1);
    }

    @Test
    void defaultStart_andAZoneChangeKeepsTheSameHand() {
        ManualClock clock = new ManualClock();
        assertThat(clock.instant()).isEqualTo(ManualClock.DEFAULT_START);

        var zoned = clock.withZone(ZoneId.of("Europe/Paris"));
        clock.advance(Duration.ofSeconds(5));

        assertThat(zoned.instant()).isEqualTo(ManualClock.DEFAULT_START.plusSeconds(5));
    }

    @Test
    void anAdvanceOnOneThread_isSeenByAReaderOnAnother() throws Exception {
        ManualClock clock = new ManualClock();
        CountDownLatch advanced = new CountDownLatch(1);
        CompletableFuture<Instant> seen = CompletableFuture.supplyAsync(() -> {
            try {
                assertThat(advanced.await(10, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return clock.instant();
        });

        clock.advance(Duration.ofHours(1));
        advanced.countDown();

        assertThat(seen.get(10, TimeUnit.SECONDS)).isEqualTo(ManualClock.DEFAULT_START.plusSeconds(3600));
    }
}
