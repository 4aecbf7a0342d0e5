package dev.felix.demos.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PacerTest {

    @Test
    void atOneThousandPerSecondAndAboveTicksAreOneMillisecondAndEveryRateIsHonoured() {
        for (long rate : new long[] {1000, 1500, 2000, 5000, 20_000, 1234}) {
            Pacer p = new Pacer(rate, Pacer.Missed.SKIP);
            assertThat(p.tickNanos()).isEqualTo(1_000_000L);
            long total = 0;
            for (int k = 0; k < 1000; k++) {
                total += p.countFor(k);
            }
            // Upstream's rate / 1000 per tick would give 1000 for 1500/s; here one second carries the rate.
            assertThat(total).as("messages in one second at %d/s", rate).isEqualTo(rate);
        }
    }

    @Test
    void belowOneThousandPerSecondOneMessagePerTickOfOneOverRate() {
        Pacer p = new Pacer(400, Pacer.Missed.BURST);
        assertThat(p.tickNanos()).isEqualTo(2_500_000L);
        assertThat(p.countFor(0)).isEqualTo(1);
        assertThat(p.countFor(399)).isEqualTo(1);
    }

    @Test
    void theFirstTickFiresAtOnceAndAStopEndsTheWait() {
        Pacer p = new Pacer(1, Pacer.Missed.BURST); // one tick per second
        assertThat(p.awaitTick(() -> false)).isEqualTo(1);
        long started = System.nanoTime();
        assertThat(p.awaitTick(() -> System.nanoTime() - started > 20_000_000L)).isEqualTo(-1);
        assertThat(System.nanoTime() - started).isLessThan(900_000_000L);
    }

    @Test
    void awaitDue_takesEveryTickAlreadyDueUpToTheCap() {
        Pacer p = new Pacer(1000, Pacer.Missed.BURST); // one message per 1 ms tick
        assertThat(p.awaitDue(() -> false, 1000)).isPositive();
        // A publisher whose write took 30 ms (simulated: this is the busy writer, not a wait for a condition):
        // at least 29 more ticks are due, and the cap bounds one batch.
        long busyUntil = System.nanoTime() + 30_000_000L;
        while (System.nanoTime() - busyUntil < 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(busyUntil - System.nanoTime());
        }
        assertThat(p.awaitDue(() -> false, 5)).isEqualTo(5);
        assertThat(p.awaitDue(() -> false, 1000)).isGreaterThanOrEqualTo(30 - 1 - 5);
        assertThat(p.awaitDue(() -> true, 1000)).isEqualTo(-1);
    }

    @Test
    void aRateBelowOneIsRefused() {
        assertThatThrownBy(() -> new Pacer(0, Pacer.Missed.SKIP)).isInstanceOf(IllegalArgumentException.class);
    }
}
