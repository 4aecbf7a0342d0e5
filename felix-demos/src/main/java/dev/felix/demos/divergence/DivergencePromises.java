package dev.felix.demos.divergence;

import dev.felix.demos.common.OffsetCoverage.Coverage;
import dev.felix.demos.common.Verdict;
import java.util.ArrayList;
import java.util.List;

/** What each mode promises, as checks over its outcome. */
final class DivergencePromises {

    /**
     * A durable stream or a watched cache must not slow the publisher below this share of its target rate
     * during the stall.
     */
    static final double DURABLE_MIN_RATE = 0.9;

    private DivergencePromises() {
    }

    /**
     * {@code lossy}: loss is never silent. Every event any consumer missed was named by a gap notice, and
     * a consumer that missed nothing is exactly right. How wrong the stalled consumer ends up is what the
     * mode shows, not what it promises: with a queue that absorbs the stall it misses nothing, and that
     * is as promised too.
     */
    static Verdict lossAnnounced(DivergenceOutcome o) {
        List<String> problems = new ArrayList<>();
        endedEarly(o, problems);
        everyMissAnnounced(o, problems);
        for (ConsumerOutcome c : o.consumers()) {
            if (c.coverage().missed() == 0 && c.coverage().notReached() == 0 && !c.wrong().isEmpty()) {
                problems.add(c.name() + " missed nothing yet has " + c.wrong().size() + " wrong keys");
            }
        }
        long missed = 0;
        long notices = 0;
        for (ConsumerOutcome victim : o.stalledConsumers()) {
            missed += victim.coverage().missed();
            notices += victim.coverage().gapNotices();
        }
        String who = o.stalledConsumers().size() == 1 ? "stalled consumer " : "stalled consumers ";
        return new Verdict(o.mode().name(), who + o.stalledWrong() + " keys wrong, told of all " + missed
                + " missed events by " + notices + " gap notice(s)", problems);
    }

    /** {@code lossless}: every consumer applied every change and matches the authority. */
    static Verdict converges(DivergenceOutcome o) {
        List<String> problems = new ArrayList<>();
        endedEarly(o, problems);
        everyChangeApplied(o, problems);
        return new Verdict(o.mode().name(), "every consumer converged, publisher at "
                + percent(o.stallRateRatio()) + " of target during the stall", problems);
    }

    /**
     * {@code durable}: every consumer converges with nothing lost, and the stall did not slow the
     * publisher (at least {@value #DURABLE_MIN_RATE} of its target rate).
     */
    static Verdict healsWithoutThrottling(DivergenceOutcome o) {
        List<String> problems = new ArrayList<>();
        endedEarly(o, problems);
        everyChangeApplied(o, problems);
        if (o.stallRateRatio() < DURABLE_MIN_RATE) {
            problems.add("publisher held only " + percent(o.stallRateRatio()) + " of its target rate during the stall"
                    + " (promised at least " + percent(DURABLE_MIN_RATE) + ")");
        }
        return new Verdict(o.mode().name(), "every consumer converged, publisher at "
                + percent(o.stallRateRatio()) + " of target during the stall (catch-up engaged "
                + o.brokerCounter("felix_catchup_detached_total") + "x, " + o.brokerCounter("felix_replayed_events_total")
                + " events replayed)", problems);
    }

    /**
     * {@code watch}: every mirror, the stalled ones included, ends with zero wrong keys; every change
     * reached each mirror once and in order, or was replaced by a fresh snapshot (whether the stall made
     * the broker end a watch is reported, not judged: a watch queue that absorbs it is fine); and the publisher
     * held at least {@value #DURABLE_MIN_RATE} of its target rate during the stall.
     */
    static Verdict mirrorsConverge(DivergenceOutcome o) {
        List<String> problems = new ArrayList<>();
        endedEarly(o, problems);
        long restarts = 0;
        long resnapshots = 0;
        for (ConsumerOutcome c : o.consumers()) {
            if (!c.wrong().isEmpty()) {
                problems.add(c.name() + " has " + c.wrong().size() + " wrong keys");
            }
            Coverage cov = c.coverage();
            if (cov.silentMissed() > 0 || cov.outOfOrder() > 0) {
                problems.add(c.name() + " skipped " + cov.silentMissed() + " changes and got " + cov.outOfOrder()
                        + " out of order or twice");
            }
            if (cov.notReached() > 0) {
                problems.add(c.name() + " had not reached the last " + cov.notReached() + " changes");
            }
            restarts += c.watch().restarts();
            resnapshots += c.watch().resnapshots();
        }
        if (!(o.stallRateRatio() >= DURABLE_MIN_RATE)) { // NaN too: no stall phase was measured
            problems.add("publisher held only " + percent(o.stallRateRatio()) + " of its target rate during the stall"
                    + " (promised at least " + percent(DURABLE_MIN_RATE) + ")");
        }
        return new Verdict(o.mode().name(), "every mirror converged (" + restarts + " watch restart(s), "
                + resnapshots + " fresh snapshot(s)), publisher at " + percent(o.stallRateRatio())
                + " of target during the stall", problems);
    }

    private static void endedEarly(DivergenceOutcome o, List<String> problems) {
        for (ConsumerOutcome c : o.endedEarly()) {
            problems.add(c.name() + "'s subscription ended early (" + c.endedEarly() + ")");
        }
    }

    private static void everyMissAnnounced(DivergenceOutcome o, List<String> problems) {
        for (ConsumerOutcome c : o.consumers()) {
            Coverage cov = c.coverage();
            if (cov.silentMissed() > 0) {
                problems.add(c.name() + " missed " + cov.silentMissed() + " events without a gap notice");
            }
            if (cov.outOfOrder() > 0) {
                problems.add(c.name() + " got " + cov.outOfOrder() + " items out of order or twice");
            }
            if (cov.notReached() > 0) {
                problems.add(c.name() + " neither received nor was told about the last " + cov.notReached()
                        + " events");
            }
        }
    }

    private static void everyChangeApplied(DivergenceOutcome o, List<String> problems) {
        if (o.totalWrong() > 0) {
            problems.add(o.totalWrong() + " keys wrong");
        }
        for (ConsumerOutcome c : o.consumers()) {
            Coverage cov = c.coverage();
            if (c.applied() != o.published()) {
                problems.add(c.name() + " applied " + c.applied() + " of " + o.published() + " changes");
            }
            if (!cov.complete()) {
                problems.add(c.name() + " missed " + (cov.missed() + cov.notReached()) + " events ("
                        + cov.gapNotices() + " gap notices)");
            }
        }
    }

    static String percent(double ratio) {
        return Math.round(ratio * 100) + "%";
    }
}
