package dev.felix.demos.divergence;

import dev.felix.demos.common.OffsetCoverage.Coverage;
import java.util.List;

/**
 * One consumer after everything settled.
 *
 * @param name        {@code consumer-N}
 * @param applied     changes it applied (a stream consumer: including ones last-writer-wins ignored)
 * @param wrong       keys whose local value differs from the authority, ascending
 * @param stalled     whether it is one of the consumers that stalled mid-run
 * @param endedEarly  why its subscription or watch ended before the run did, or null
 * @param coverage    its offsets: delivered, announced as missed (or replaced by a snapshot), missed silently
 * @param watch       how its watch recovered, for a cache mirror; null for a stream consumer
 */
public record ConsumerOutcome(String name, long applied, List<Integer> wrong, boolean stalled, String endedEarly,
        Coverage coverage, WatchRecovery watch) {

    public ConsumerOutcome {
        wrong = List.copyOf(wrong);
    }
}
