package dev.felix.demos.divergence;

import dev.felix.demos.common.DropCounters;
import java.util.List;

/**
 * One mode's run.
 *
 * @param mode           the mode
 * @param keys           keyspace size
 * @param published      changes whose publish succeeded
 * @param publishErrors  changes whose publish failed (the authority moved anyway, so they show as wrong keys)
 * @param publishedEnd   the end of the offset range the broker accepted (offsets start at 0)
 * @param targetRate     changes per second asked for
 * @param stallRate      changes per second the publisher achieved while the consumers were stalled
 * @param consumers      every consumer, the stalled ones last
 * @param brokerCounters the broker's drop, block, catch-up and watch-overflow counters above zero after the run
 */
public record DivergenceOutcome(DivergenceMode mode, int keys, long published, long publishErrors, long publishedEnd,
        long targetRate, double stallRate, List<ConsumerOutcome> consumers, List<DropCounters.Series> brokerCounters) {

    public DivergenceOutcome {
        consumers = List.copyOf(consumers);
        brokerCounters = List.copyOf(brokerCounters);
    }

    public long totalWrong() {
        return consumers.stream().mapToLong(c -> c.wrong().size()).sum();
    }

    public long stalledWrong() {
        return consumers.stream().filter(ConsumerOutcome::stalled).mapToLong(c -> c.wrong().size()).sum();
    }

    public long healthyWrong() {
        return consumers.stream().filter(c -> !c.stalled()).mapToLong(c -> c.wrong().size()).sum();
    }

    public List<ConsumerOutcome> endedEarly() {
        return consumers.stream().filter(c -> c.endedEarly() != null).toList();
    }

    /** The consumers that stalled mid-run. */
    public List<ConsumerOutcome> stalledConsumers() {
        return consumers.stream().filter(ConsumerOutcome::stalled).toList();
    }

    /** The broker counter series named {@code name} (labels included, e.g. {@code felix_catchup_detached_total}), or 0. */
    public long brokerCounter(String name) {
        return brokerCounters.stream().filter(s -> s.series().equals(name)).mapToLong(DropCounters.Series::value)
                .sum();
    }

    /** Achieved rate during the stall as a fraction of the target. */
    public double stallRateRatio() {
        return stallRate / targetRate;
    }
}
