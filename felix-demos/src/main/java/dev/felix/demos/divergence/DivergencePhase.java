package dev.felix.demos.divergence;

import java.util.List;

/**
 * The schedule of a run, in phase units of {@code P} seconds: converged {@code [0,P)}, stalled
 * {@code [P,3P)} (the last consumer stops reading), recovering {@code [3P,4P)} (it reads again and
 * publishing stops), quiesced {@code [4P,5P)}. Publishing stops when the stall ends because continued
 * churn would rewrite, and so heal, the keys the stalled consumer got wrong; a quiet period after a
 * burst is what makes divergence permanent.
 */
enum DivergencePhase {
    CONVERGED,
    STALLED,
    RECOVERING,
    QUIESCED;

    /** Phase units in a run. */
    static final int UNITS = 5;

    /** The phase at {@code elapsedSeconds} (whole seconds, truncated) with {@code P}-second units. */
    static DivergencePhase at(long elapsedSeconds, long p) {
        if (elapsedSeconds < p) {
            return CONVERGED;
        }
        if (elapsedSeconds < 3 * p) {
            return STALLED;
        }
        if (elapsedSeconds < 4 * p) {
            return RECOVERING;
        }
        return QUIESCED;
    }

    boolean publishing() {
        return this == CONVERGED || this == STALLED;
    }

    /** The phase's headline; {@code victims} are the consumers that stall. */
    String label(List<String> victims) {
        String who = names(victims);
        boolean one = victims.size() == 1;
        return switch (this) {
            case CONVERGED -> "converged — every consumer matches the authority";
            case STALLED -> "STALLED — " + who + (one ? " has" : " have") + " stopped applying changes";
            case RECOVERING -> "recovering — " + who + (one ? " is" : " are") + " reading again";
            case QUIESCED -> "quiesced — publishing stopped, state has settled";
        };
    }

    /** {@code a}, {@code a and b}, {@code a, b and c}. */
    static String names(List<String> names) {
        if (names.size() == 1) {
            return names.get(0);
        }
        return String.join(", ", names.subList(0, names.size() - 1)) + " and " + names.get(names.size() - 1);
    }
}
