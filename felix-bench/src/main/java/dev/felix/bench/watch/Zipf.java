package dev.felix.bench.watch;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Draws ranks {@code 0 .. n-1} with probability proportional to {@code 1 / (rank + 1)^s} (Zipf), from a
 * seeded generator, so two runs with the same seed write the same keys in the same order. Rank 0 is the
 * hottest key: for n = 2,000 and s = 1 it takes 1 / H(2000) ≈ 12.2% of the draws.
 *
 * <p>Inverse-CDF sampling over a precomputed table: O(n) memory, O(log n) per draw. Not thread-safe: one
 * writer thread owns an instance.
 */
public final class Zipf {

    private final double[] cdf;
    private final SplittableRandom random;

    public Zipf(int n, double s, long seed) {
        if (n < 1) {
            throw new IllegalArgumentException("n must be >= 1, was " + n);
        }
        if (!(s >= 0) || Double.isInfinite(s)) {
            throw new IllegalArgumentException("s must be a finite number >= 0, was " + s);
        }
        cdf = new double[n];
        double sum = 0;
        for (int k = 0; k < n; k++) {
            sum += 1.0 / Math.pow(k + 1, s);
            cdf[k] = sum;
        }
        for (int k = 0; k < n; k++) {
            cdf[k] /= sum;
        }
        cdf[n - 1] = 1.0; // no rounding gap at the top
        random = new SplittableRandom(seed);
    }

    /** The probability of {@code rank} (0-based). */
    public double probability(int rank) {
        return rank == 0 ? cdf[0] : cdf[rank] - cdf[rank - 1];
    }

    public int size() {
        return cdf.length;
    }

    /** The next rank, 0 (hottest) .. n-1. */
    public int next() {
        double u = random.nextDouble();
        int i = Arrays.binarySearch(cdf, u);
        // binarySearch returns -(insertion point) - 1 when u is not in the table: the first cdf[i] > u.
        return i >= 0 ? Math.min(i + 1, cdf.length - 1) : -i - 1;
    }
}
