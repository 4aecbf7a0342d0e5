package dev.felix.demos.slowconsumer;

/**
 * The schedule of a run, in phase units of {@code P} seconds: baseline {@code [0,P)}, degraded
 * {@code [P,3P)} (the last subscriber stops draining), recovered {@code [3P,4P)}. Publishing runs
 * throughout.
 */
enum SlowConsumerPhase {
    BASELINE,
    DEGRADED,
    RECOVERED;

    static final int UNITS = 4;

    static SlowConsumerPhase at(long elapsedSeconds, long p) {
        if (elapsedSeconds < p) {
            return BASELINE;
        }
        if (elapsedSeconds < 3 * p) {
            return DEGRADED;
        }
        return RECOVERED;
    }

    String label(String victim) {
        return switch (this) {
            case BASELINE -> "baseline — all consumers healthy";
            case DEGRADED -> "DEGRADED — " + victim + " has stopped draining";
            case RECOVERED -> "recovered — " + victim + " draining again";
        };
    }
}
