package dev.felix.bench.common;

import java.util.Arrays;
import java.util.List;

/**
 * Summary statistics over the runs of one benchmark cell. The machine is noisy, so a cell is reported
 * as the median of several fresh runs plus how far the worst run strays from it.
 */
public final class Stats {

    private Stats() {
    }

    /** The median (mean of the two middle values for an even count); NaN for no values. */
    public static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(v);
        int mid = v.length / 2;
        return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    }

    /** The worst value: the lowest when higher is better (a rate), the highest otherwise (a latency). */
    public static double worst(List<Double> values, boolean higherIsBetter) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        return higherIsBetter
                ? values.stream().mapToDouble(Double::doubleValue).min().getAsDouble()
                : values.stream().mapToDouble(Double::doubleValue).max().getAsDouble();
    }

    /**
     * How many times worse the worst run is than the median, as a number &ge; 1 whichever way "better"
     * points (1.00 = every run at least as good as the median). NaN when it cannot be told (no runs, or a
     * zero on the divisor side).
     */
    public static double spread(List<Double> values, boolean higherIsBetter) {
        double median = median(values);
        double worst = worst(values, higherIsBetter);
        double ratio = higherIsBetter ? median / worst : worst / median;
        return Double.isFinite(ratio) ? ratio : Double.NaN;
    }

    /** {@code a / b}, NaN when either is missing or b is zero. */
    public static double ratio(double a, double b) {
        double r = a / b;
        return Double.isFinite(r) ? r : Double.NaN;
    }

    /** CPU seconds spent per million deliveries; NaN if nothing was delivered or no CPU figure exists. */
    /** Bytes allocated per delivery; NaN when either is unknown. */
    public static double bytesPerDelivery(long bytes, long deliveries) {
        if (deliveries <= 0 || bytes < 0) {
            return Double.NaN;
        }
        return bytes / (double) deliveries;
    }

    public static double cpuSecondsPerMillion(long cpuNanos, long deliveries) {
        if (deliveries <= 0 || cpuNanos < 0) {
            return Double.NaN;
        }
        return (cpuNanos / 1e9) / (deliveries / 1e6);
    }
}
