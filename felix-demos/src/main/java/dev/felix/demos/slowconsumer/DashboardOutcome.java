package dev.felix.demos.slowconsumer;

import dev.felix.demos.common.OffsetCoverage.Coverage;

/**
 * One subscriber after its run.
 *
 * @param name            {@code dash-N}
 * @param received        messages received
 * @param lost            sequence numbers that never arrived (between two received ones)
 * @param locallyDropped  of those, dropped by its own SDK receive queue
 * @param stalled         whether it is the one that stalled
 * @param endedEarly      why its subscription ended before the run did, or null
 * @param coverage        its offsets: delivered, announced as missed, missed silently, not reached
 */
public record DashboardOutcome(String name, long received, long lost, long locallyDropped, boolean stalled,
        String endedEarly, Coverage coverage) {
}
