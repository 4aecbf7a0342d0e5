package dev.felix.demos.divergence;

import java.util.List;

/**
 * What the control loop shows every tick.
 *
 * @param phase      the current phase
 * @param victims    the names of the consumers that stall
 * @param rows       one per consumer
 * @param published  changes published so far
 * @param keys       keyspace size
 */
record DivergenceTick(DivergencePhase phase, List<String> victims, List<Row> rows, long published, int keys) {

    DivergenceTick {
        victims = List.copyOf(victims);
        rows = List.copyOf(rows);
    }

    /**
     * One consumer now: whether it is stalled, what it applied, how many keys are wrong, and what it was
     * told — gap notices (stream consumers) or watch restarts and fresh snapshots (cache mirrors).
     */
    record Row(String name, boolean stalled, long applied, int wrong, long gapNotices, long announcedMissed,
            long watchRestarts, long resnapshots) {
    }

    String phaseLabel() {
        return phase.label(victims);
    }
}
