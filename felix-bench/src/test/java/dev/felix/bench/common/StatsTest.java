package dev.felix.bench.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class StatsTest {

    @Test
    void median_ofOddAndEvenCounts() {
        assertThat(Stats.median(List.of(5.0, 1.0, 3.0))).isEqualTo(3.0);
        assertThat(Stats.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
        assertThat(Stats.median(List.of())).isNaN();
    }

    @Test
    void spread_isWorstOverMedian_whicheverWayBetterPoints() {
        List<Double> latencies = List.of(100.0, 110.0, 150.0, 105.0, 120.0); // median 110, worst 150
        assertThat(Stats.spread(latencies, false)).isCloseTo(150.0 / 110.0, within(1e-9));
        List<Double> rates = List.of(1000.0, 900.0, 1100.0, 500.0, 1050.0); // median 1000, worst 500
        assertThat(Stats.spread(rates, true)).isCloseTo(2.0, within(1e-9));
        assertThat(Stats.spread(List.of(7.0), true)).isEqualTo(1.0);
        assertThat(Stats.spread(List.of(0.0, 0.0), true)).isNaN();
    }

    @Test
    void cpuPerMillionDeliveries() {
        // 3 s of CPU for 1.5 M deliveries = 2 s per million.
        assertThat(Stats.cpuSecondsPerMillion(3_000_000_000L, 1_500_000)).isCloseTo(2.0, within(1e-9));
        assertThat(Stats.cpuSecondsPerMillion(-1, 10)).isNaN();
        assertThat(Stats.cpuSecondsPerMillion(5, 0)).isNaN();
    }
}
