package dev.felix.demos.slowconsumer;

import dev.felix.demos.common.OffsetCoverage.Coverage;
import dev.felix.demos.common.Verdict;
import java.util.ArrayList;
import java.util.List;

/** What each arm promises, as checks over its outcome. */
final class SlowConsumerPromises {

    /** Healthy subscribers may shed under load, but less than this share (upstream: 0.1%). */
    static final double HEALTHY_LOSS_LIMIT = 0.001;
    /** The stalled subscriber must lose this many times more than the healthy ones together (upstream: 100). */
    static final int SEPARATION = 100;
    /** catch_up: the degraded-phase rate must be at least this share of the baseline rate. */
    static final double CATCH_UP_MIN_RATE = 0.9;

    private SlowConsumerPromises() {
    }

    /**
     * {@code drop_new}: loss is confined to the stalled subscriber (healthy loss under 0.1%, stalled loss
     * over 100x healthy), and every loss is announced with a gap notice.
     */
    static Verdict lossConfined(SlowConsumerOutcome o) {
        List<String> problems = new ArrayList<>();
        common(o, problems);
        if (o.stalledLost() == 0) {
            problems.add("the stalled subscriber lost nothing (the stall did not overflow its queues)");
        }
        if (o.healthyLossRate() >= HEALTHY_LOSS_LIMIT) {
            problems.add(String.format("healthy subscribers lost %.3f%% (limit %.1f%%)", o.healthyLossRate() * 100,
                    HEALTHY_LOSS_LIMIT * 100));
        }
        if (o.stalledLost() <= satMul(o.healthyLost(), SEPARATION)) {
            problems.add("the stalled subscriber lost " + o.stalledLost() + ", not " + SEPARATION
                    + "x the healthy ones' " + o.healthyLost());
        }
        return new Verdict(o.policy().name(), String.format("stalled lost %d, healthy lost %d (%.3f%%), every loss "
                + "announced", o.stalledLost(), o.healthyLost(), o.healthyLossRate() * 100), problems);
    }

    /** {@code block}: nothing lost anywhere. */
    static Verdict nothingLost(SlowConsumerOutcome o) {
        List<String> problems = new ArrayList<>();
        common(o, problems);
        noLoss(o, problems);
        return new Verdict(o.policy().name(), String.format("nothing lost; publisher at %d%% of baseline during "
                + "the stall", Math.round(o.degradedToBaseline() * 100)), problems);
    }

    /** {@code catch_up}: nothing lost anywhere, and the publisher within 10% of its baseline during the stall. */
    static Verdict nothingLostNobodySlowed(SlowConsumerOutcome o) {
        List<String> problems = new ArrayList<>();
        common(o, problems);
        noLoss(o, problems);
        if (o.degradedToBaseline() < CATCH_UP_MIN_RATE) {
            problems.add(String.format("publisher fell to %d/s during the stall from %d/s (%d%%; promised at least "
                    + "%d%%; it waited %d ms for its writes)", o.degradedRate(), o.baselineRate(),
                    Math.round(o.degradedToBaseline() * 100), Math.round(CATCH_UP_MIN_RATE * 100),
                    o.stallWaitMillis()));
        }
        return new Verdict(o.policy().name(), String.format("nothing lost; publisher at %d%% of baseline during "
                + "the stall", Math.round(o.degradedToBaseline() * 100)), problems);
    }

    private static void common(SlowConsumerOutcome o, List<String> problems) {
        if (o.achievedRate() <= 0) {
            problems.add("the publisher published nothing");
        }
        for (DashboardOutcome d : o.subscribers()) {
            if (d.endedEarly() != null) {
                problems.add(d.name() + "'s subscription ended early (" + d.endedEarly() + ")");
            }
            Coverage c = d.coverage();
            if (c.silentMissed() > 0) {
                problems.add(d.name() + " missed " + c.silentMissed() + " events without a gap notice");
            }
            if (c.outOfOrder() > 0) {
                problems.add(d.name() + " got " + c.outOfOrder() + " items out of order or twice");
            }
        }
    }

    private static void noLoss(SlowConsumerOutcome o, List<String> problems) {
        for (DashboardOutcome d : o.subscribers()) {
            if (d.lost() > 0 || d.coverage().announcedMissed() > 0) {
                problems.add(d.name() + " lost " + Math.max(d.lost(), d.coverage().announcedMissed()) + " events");
            }
        }
    }

    private static long satMul(long a, long b) {
        long r = a * b;
        return a != 0 && r / a != b ? Long.MAX_VALUE : r;
    }
}
