package dev.felix.demos.slowconsumer;

import java.util.Arrays;
import java.util.List;

/** Upstream's percentile arithmetic, so the numbers compare. */
final class Percentiles {

    private Percentiles() {
    }

    /** The {@code q} quantile of {@code nanos} in microseconds: sorted, index {@code round((n-1) q)}. */
    static long micros(long[] nanos, double q) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        int idx = (int) Math.round((sorted.length - 1) * q);
        return sorted[idx] / 1000;
    }

    /** The median ({@code sorted[n/2]}), or null for none. */
    static Long median(List<Long> values) {
        if (values.isEmpty()) {
            return null;
        }
        Long[] sorted = values.toArray(Long[]::new);
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
