package dev.felix.bench.watch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ZipfTest {

    /** H(n) = 1 + 1/2 + ... + 1/n. */
    private static double harmonic(int n) {
        double h = 0;
        for (int k = 1; k <= n; k++) {
            h += 1.0 / k;
        }
        return h;
    }

    @Test
    void rankFrequencies_followOneOverRank_forTwoThousandKeys() {
        Zipf zipf = new Zipf(2_000, 1.0, 7);
        int draws = 200_000;
        int[] counts = new int[2_000];
        for (int i = 0; i < draws; i++) {
            counts[zipf.next()]++;
        }
        double p1 = 1 / harmonic(2_000); // ~0.1223
        assertThat(zipf.probability(0)).isCloseTo(p1, within(1e-9));
        // One standard deviation of the observed frequency is ~0.0007 here; allow 7.
        assertThat(counts[0] / (double) draws).isCloseTo(p1, within(0.005));
        assertThat(counts[1] / (double) draws).isCloseTo(p1 / 2, within(0.004));
        assertThat(counts[9] / (double) draws).isCloseTo(p1 / 10, within(0.002));
        // The tail is drawn too: some of the 1,000 coldest keys were written.
        int tail = 0;
        for (int k = 1_000; k < 2_000; k++) {
            tail += counts[k];
        }
        assertThat(tail).isGreaterThan(0);
    }

    @Test
    void sameSeed_sameSequence_otherSeed_otherSequence() {
        Zipf a = new Zipf(2_000, 1.0, 42);
        Zipf b = new Zipf(2_000, 1.0, 42);
        Zipf c = new Zipf(2_000, 1.0, 43);
        boolean differs = false;
        for (int i = 0; i < 10_000; i++) {
            int x = a.next();
            assertThat(b.next()).isEqualTo(x);
            differs |= c.next() != x;
            assertThat(x).isBetween(0, 1_999);
        }
        assertThat(differs).isTrue();
    }

    @Test
    void probabilitiesSumToOne_andExponentZeroIsUniform() {
        Zipf z = new Zipf(100, 0.0, 1);
        double sum = 0;
        for (int k = 0; k < 100; k++) {
            assertThat(z.probability(k)).isCloseTo(0.01, within(1e-12));
            sum += z.probability(k);
        }
        assertThat(sum).isCloseTo(1.0, within(1e-9));
        Zipf one = new Zipf(1, 1.0, 1);
        assertThat(one.next()).isZero();
    }
}
