package dev.felix.demos.slowconsumer;

import java.util.List;

/**
 * What the control loop shows every tick.
 *
 * @param phase       the current phase
 * @param victim      the subscriber that stalls
 * @param rows        one per subscriber
 * @param published   messages published so far
 * @param currentRate the publisher's rate over the last tick, msg/s
 * @param targetRate  the rate asked for
 */
record SlowConsumerTick(SlowConsumerPhase phase, String victim, List<Row> rows, long published, long currentRate,
        long targetRate) {

    /** One subscriber now. */
    record Row(String name, boolean stalled, long received, long lost, long gapNotices) {
    }

    String phaseLabel() {
        return phase.label(victim);
    }
}
