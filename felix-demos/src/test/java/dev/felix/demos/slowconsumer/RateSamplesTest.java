package dev.felix.demos.slowconsumer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RateSamplesTest {

    @Test
    void achievedIsTheMeanWithoutTwoSamplesAtEachEnd() {
        RateSamples r = new RateSamples();
        long[] values = {0, 100, 1000, 2000, 3000, 50, 10};
        for (long v : values) {
            r.add(SlowConsumerPhase.BASELINE, v);
        }
        assertThat(r.achieved()).isEqualTo(2000);
        assertThat(r.last()).isEqualTo(10);
    }

    @Test
    void withFewSamplesAchievedIsTheMaximum() {
        RateSamples r = new RateSamples();
        r.add(SlowConsumerPhase.BASELINE, 5);
        r.add(SlowConsumerPhase.BASELINE, 7);
        assertThat(r.achieved()).isEqualTo(7);
    }

    @Test
    void phaseRatesLeaveOutTheStartUpIntervals() {
        RateSamples r = new RateSamples();
        r.add(SlowConsumerPhase.BASELINE, 0);
        r.add(SlowConsumerPhase.BASELINE, 500);
        r.add(SlowConsumerPhase.BASELINE, 2000);
        r.add(SlowConsumerPhase.BASELINE, 1800);
        r.add(SlowConsumerPhase.DEGRADED, 1000);
        r.add(SlowConsumerPhase.DEGRADED, 1200);
        assertThat(r.during(SlowConsumerPhase.BASELINE)).isEqualTo(1900);
        assertThat(r.during(SlowConsumerPhase.DEGRADED)).isEqualTo(1100);
        assertThat(r.during(SlowConsumerPhase.RECOVERED)).isZero();
    }

    @Test
    void percentilesAndMedianUseUpstreamsArithmetic() {
        long[] nanos = new long[101];
        for (int i = 0; i <= 100; i++) {
            nanos[i] = (100 - i) * 1000L;
        }
        assertThat(Percentiles.micros(nanos, 0.99)).isEqualTo(99);
        assertThat(Percentiles.micros(nanos, 0.5)).isEqualTo(50);
        assertThat(Percentiles.median(java.util.List.of(3L, 1L, 2L, 10L))).isEqualTo(3);
        assertThat(Percentiles.median(java.util.List.of())).isNull();
    }

    @Test
    void telemetryPayloadIsBigEndianPaddedWithAb() {
        byte[] b = new TelemetryPayload(0x0102030405060708L, 42).encode(20);
        assertThat(b).hasSize(20);
        assertThat(b[0]).isEqualTo((byte) 1);
        assertThat(b[15]).isEqualTo((byte) 42);
        assertThat(b[16]).isEqualTo((byte) 0xAB);
        assertThat(TelemetryPayload.decode(b)).isEqualTo(new TelemetryPayload(0x0102030405060708L, 42));
        assertThat(TelemetryPayload.decode(new byte[15])).isNull();
        assertThat(new TelemetryPayload(1, 2).encode(3)).hasSize(TelemetryPayload.HEADER_BYTES);
    }
}
