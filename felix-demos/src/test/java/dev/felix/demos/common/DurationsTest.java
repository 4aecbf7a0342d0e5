package dev.felix.demos.common;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Demo latencies read as µs, ms or s — "9.9 s", not "9945087 us". */
class DurationsTest {

    @Test
    void picksTheUnitAPersonReads() {
        assertThat(Durations.micros(0)).isEqualTo("0 µs");
        assertThat(Durations.micros(145)).isEqualTo("145 µs");
        assertThat(Durations.micros(2_345)).isEqualTo("2.3 ms");
        assertThat(Durations.micros(55_007)).isEqualTo("55 ms");
        assertThat(Durations.micros(9_945_087)).isEqualTo("9.9 s");
        assertThat(Durations.micros(125_000_000)).isEqualTo("125 s");
    }
}
