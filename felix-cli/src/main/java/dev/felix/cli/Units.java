package dev.felix.cli;

import java.time.Duration;

/**
 * Human-readable durations for what the CLI prints, in the same units its options accept ({@code 7d},
 * {@code 12h}, {@code 30m}, {@code 45s}, {@code 500ms}), so a printed value can be typed back in.
 * Stateless.
 */
final class Units {
    private Units() {
    }

    /**
     * {@code d} as the largest units that divide it exactly, largest first: 7 days → {@code 7d},
     * 90 minutes → {@code 1h30m}, 1.5 s → {@code 1s500ms}; zero → {@code 0s}.
     */
    static String duration(Duration d) {
        long ms = d.toMillis();
        if (ms == 0) {
            return "0s";
        }
        StringBuilder sb = new StringBuilder();
        if (ms < 0) {
            sb.append('-');
            ms = -ms;
        }
        long[] sizes = {86_400_000L, 3_600_000L, 60_000L, 1000L, 1L};
        String[] names = {"d", "h", "m", "s", "ms"};
        for (int i = 0; i < sizes.length; i++) {
            if (ms >= sizes[i]) {
                sb.append(ms / sizes[i]).append(names[i]);
                ms %= sizes[i];
            }
        }
        return sb.toString();
    }

    /** A duration given in milliseconds; see {@link #duration(Duration)}. */
    static String millis(long ms) {
        return duration(Duration.ofMillis(ms));
    }
}
