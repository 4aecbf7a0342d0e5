package dev.felix.bench.watch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WriteTrackerTest {

    @Test
    void aMirrorThatSkipsIntermediateValues_stillGetsOneSamplePerWrite() {
        WriteTracker t = new WriteTracker(2, 2, 64);
        WriteTracker.Phase p = t.beginPhase("p");
        int a0 = t.record(0, 1_000_000);
        int a1 = t.record(0, 2_000_000);
        int b0 = t.record(1, 3_000_000);
        int a2 = t.record(0, 4_000_000);
        t.endPhase();
        assertThat(t.outstanding()).isEqualTo(8); // 4 writes x 2 mirrors

        // Mirror 0 sees every change; mirror 1 only the newest value of key 0 (as a Redis GET would).
        assertThat(t.apply(0, t.value(a0, 0), 10_000_000)).isTrue();
        assertThat(t.apply(0, t.value(a1, 0), 11_000_000)).isTrue();
        assertThat(t.apply(0, t.value(b0, 1), 12_000_000)).isTrue();
        assertThat(t.apply(0, t.value(a2, 0), 13_000_000)).isTrue();
        assertThat(t.apply(1, t.value(a2, 0), 20_000_000)).isTrue();
        assertThat(t.outstanding()).isEqualTo(1); // mirror 1 lacks key 1
        assertThat(t.apply(1, t.value(a1, 0), 21_000_000)).isTrue(); // older than what it holds: ignored
        assertThat(t.apply(1, t.value(b0, 1), 22_000_000)).isTrue();

        assertThat(t.outstanding()).isZero();
        assertThat(t.samples()).isEqualTo(8);
        assertThat(p.everyMirror().getTotalCount()).isEqualTo(8);
        assertThat(p.allMirrors().getTotalCount()).isEqualTo(4);
        // a0 at mirror 1 was applied when a2 landed there: 20 ms - 1 ms = 19,000 us.
        assertThat(p.allMirrors().getMaxValue()).isBetween(18_990L, 19_010L);
        assertThat(t.expectedValue(0)).isEqualTo(t.value(a2, 0));
        assertThat(t.apply(0, new byte[] {1, 2, 3}, 0)).isFalse();
    }
}
