package dev.felix.demos.common;

import java.util.Locale;

/**
 * Latencies as a person reads them: {@code 145 µs}, {@code 2.3 ms}, {@code 9.9 s}, never a raw count of
 * microseconds. Two significant digits past the first below 10 of a unit. Stateless.
 */
public final class Durations {
    private Durations() {
    }

    /** {@code micros} (≥ 0) in the largest unit that keeps it at 1 or more. */
    public static String micros(long micros) {
        if (micros < 1000) {
            return micros + " µs";
        }
        if (micros < 1_000_000) {
            return scaled(micros / 1000.0) + " ms";
        }
        return scaled(micros / 1_000_000.0) + " s";
    }

    private static String scaled(double v) {
        return v < 10 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.0f", v);
    }
}
