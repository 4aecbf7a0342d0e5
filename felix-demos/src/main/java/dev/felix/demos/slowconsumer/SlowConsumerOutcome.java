package dev.felix.demos.slowconsumer;

import dev.felix.demos.common.DropCounters;
import java.util.List;

/**
 * One arm's run.
 *
 * @param policy              the arm
 * @param targetRate          messages per second asked for
 * @param achievedRate        upstream's achieved rate (trimmed mean of the samples)
 * @param baselineRate        mean rate while every subscriber was healthy
 * @param degradedRate        mean rate while one subscriber was stalled
 * @param healthyP99Baseline  median of the healthy subscribers' per-tick p99 latency before the stall, µs
 * @param healthyP99Degraded  the same during the stall, µs (null if none)
 * @param healthyP99PublishedBaseline  healthy subscribers' p99 over messages published before the stall, µs
 * @param healthyP99PublishedDegraded  the same over messages published during the stall, however late
 *                                     they arrived, µs (null if none arrived)
 * @param stallWaitMillis     how far behind its schedule writes held the publisher back during the
 *                            stall: time backpressure held it (a slower rate with little waiting
 *                            means the publisher was short of CPU, not held back)
 * @param published           messages published
 * @param publishErrors       publishes that failed
 * @param subscribers         every subscriber, the stalled one last
 * @param brokerDrops         drop counters above zero after the run
 * @param brokerFlow          block / catch-up counters above zero after the run
 */
public record SlowConsumerOutcome(IsolationPolicy policy, long targetRate, long achievedRate, long baselineRate,
        long degradedRate, Long healthyP99Baseline, Long healthyP99Degraded, Long healthyP99PublishedBaseline,
        Long healthyP99PublishedDegraded, long stallWaitMillis, long published, long publishErrors,
        List<DashboardOutcome> subscribers, List<DropCounters.Series> brokerDrops,
        List<DropCounters.Series> brokerFlow) {

    public SlowConsumerOutcome {
        subscribers = List.copyOf(subscribers);
        brokerDrops = List.copyOf(brokerDrops);
        brokerFlow = List.copyOf(brokerFlow);
    }

    public long healthyLost() {
        return subscribers.stream().filter(s -> !s.stalled()).mapToLong(DashboardOutcome::lost).sum();
    }

    public long healthyReceived() {
        return subscribers.stream().filter(s -> !s.stalled()).mapToLong(DashboardOutcome::received).sum();
    }

    public long stalledLost() {
        return subscribers.stream().filter(DashboardOutcome::stalled).mapToLong(DashboardOutcome::lost).sum();
    }

    /** Healthy subscribers' loss as a share of what they received. */
    public double healthyLossRate() {
        return (double) healthyLost() / Math.max(healthyReceived(), 1);
    }

    /** Degraded-phase rate as a share of the baseline rate of the same run. */
    public double degradedToBaseline() {
        return baselineRate == 0 ? 0 : (double) degradedRate / baselineRate;
    }
}
