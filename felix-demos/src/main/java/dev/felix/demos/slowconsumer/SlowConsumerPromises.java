package dev.felix.demos.slowconsumer;

import dev.felix.demos.common.OffsetCoverage.Coverage;
import dev.felix.demos.common.Verdict;
import java.util.ArrayList;
import java.util.List;

/** What each arm promises, as checks over its outcome. */
final class SlowConsumerPromises {

    /** Healthy subscribers may shed under load, but less than this share (upstream: 0.1%). */
    static final double HEALTHY_LOSS_LIMIT = 0.001;
    /** catch_up: the degraded-phase rate must be at least this share of the baseline rate. */
    static final double CATCH_UP_MIN_RATE = 0.9;

    private SlowConsumerPromises() {
    }

    /**
     * {@code drop_new}: loss is confined to the stalled subscriber — the healthy ones lose under
     * {@value #HEALTHY_LOSS_LIMIT} of what was published — and announced: every subscriber accounts for
     * every published offset, received or named by a gap notice. Whether the stall was long enough to
     * make the stalled subscriber lose anything is not part of the promise (with a queue that absorbs the
     * stall, nobody loses anything, and that is as promised too).
     */
    static Verdict lossConfined(SlowConsumerOutcome o) {
        List<String> problems = new ArrayList<>();
        common(o, problems);
        if (o.healthyLossRate() >= HEALTHY_LOSS_LIMIT) {
            problems.add(String.format("healthy subscribers lost %.3f%% (limit %.1f%%)", o.healthyLossRate() * 100,
                    HEALTHY_LOSS_LIMIT * 100));
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
                    + "%d%%; it fell %d ms behind its schedule)", o.degradedRate(), o.baselineRate(),
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
            if (c.notReached() > 0) {
                problems.add(d.name() + " had neither received nor been told about the last " + c.notReached()
                        + " events " + SlowConsumerRun.SETTLE_TIMEOUT.toSeconds() + " s after publishing stopped");
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

}
