package dev.felix.demos.divergence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.demos.common.OffsetCoverage.Coverage;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The demo's own assertions, at upstream's test size: 400 changes/s, 500 keys, 3 consumers, a 64-event
 * broker queue, 2-second phases (a run is 10 s plus 1.5 s settling).
 */
@Timeout(120)
class StateDivergenceDemoTest {

    private static DivergenceOutcome run(DivergenceMode mode) throws Exception {
        return run(new DivergenceConfig(400, 500, 3, 1, 64, 64, 2, List.of(mode), false,
                DivergenceConfig.DEFAULT_STREAM_WINDOW));
    }

    private static DivergenceOutcome run(DivergenceConfig config) throws Exception {
        List<DivergenceOutcome> outcomes = StateDivergenceDemo.runModes(config,
                StateDivergenceDemo.plainView(System.out));
        DivergenceReport.print(System.out, outcomes, config);
        return outcomes.get(0);
    }

    @Test
    void lossy_theStalledConsumerEndsWrongAndWasToldOfEveryEventItMissed() throws Exception {
        DivergenceOutcome o = run(DivergenceModes.LOSSY);

        assertThat(o.endedEarly()).isEmpty();
        assertThat(o.stalledWrong()).isPositive();
        // Not "healthy == 0": a healthy client may shed locally on a loaded machine; then it must be told too.
        assertThat(o.stalledWrong()).isGreaterThan(o.healthyWrong() * 20); // upstream's separation, at this size

        assertThat(o.stalledConsumers()).hasSize(1);
        Coverage victim = o.stalledConsumers().get(0).coverage();
        assertThat(victim.gapNotices()).isPositive();
        assertThat(victim.announcedMissed()).isPositive();
        assertThat(victim.silentMissed()).as("events missed without a notice").isZero();
        assertThat(victim.outOfOrder()).isZero();
        assertThat(victim.notReached()).isZero();
        assertThat(victim.delivered() + victim.announcedMissed()).as("every published offset accounted for")
                .isEqualTo(victim.published()).isEqualTo(o.publishedEnd());
        for (ConsumerOutcome healthy : o.consumers().subList(0, o.consumers().size() - 1)) {
            Coverage c = healthy.coverage();
            assertThat(c.silentMissed()).as(healthy.name()).isZero();
            assertThat(c.delivered() + c.announcedMissed()).as(healthy.name()).isEqualTo(o.publishedEnd());
            if (c.gapNotices() == 0) {
                assertThat(c.complete()).as(healthy.name()).isTrue();
            }
        }
        assertThat(o.mode().check(o).kept()).isTrue();
    }

    /**
     * Options the demo accepts under which the stall harms nobody (queues that absorb it): the verdict
     * judges the promise, so it is "as promised", not "the stall demonstrated nothing".
     */
    @Test
    void lossyAndWatch_withQueuesThatAbsorbTheStall_areAsPromised() throws Exception {
        DivergenceConfig roomy = new DivergenceConfig(100, 50, 2, 1, 64, 1 << 20, 1,
                List.of(DivergenceModes.LOSSY, DivergenceModes.WATCH), false, DivergenceConfig.DEFAULT_STREAM_WINDOW);
        List<DivergenceOutcome> outcomes = StateDivergenceDemo.runModes(roomy, StateDivergenceDemo.plainView(System.out));
        DivergenceReport.print(System.out, outcomes, roomy);
        for (DivergenceOutcome o : outcomes) {
            assertThat(o.totalWrong()).as(o.mode().name() + ": nobody ends wrong").isZero();
            assertThat(o.mode().check(o).kept()).as(o.mode().name() + ": " + o.mode().check(o).problems()).isTrue();
        }
        assertThat(outcomes.get(0).stalledConsumers().get(0).coverage().missed()).as("the stall overflowed nothing")
                .isZero();
    }

    @Test
    void lossless_everyConsumerAppliedEveryChangeAndNoKeyIsWrong() throws Exception {
        DivergenceOutcome o = run(DivergenceModes.LOSSLESS);

        assertThat(o.endedEarly()).isEmpty();
        assertThat(o.totalWrong()).isZero();
        assertThat(o.published()).isPositive().isEqualTo(o.publishedEnd());
        for (ConsumerOutcome c : o.consumers()) {
            assertThat(c.applied()).as(c.name()).isEqualTo(o.published());
            assertThat(c.coverage().complete()).as(c.name()).isTrue();
        }
        assertThat(o.mode().check(o).kept()).isTrue();
    }

    @Test
    void durable_everyConsumerConvergesAndThePublisherKeepsItsRateThroughTheStall() throws Exception {
        DivergenceOutcome o = run(DivergenceModes.DURABLE);

        assertThat(o.endedEarly()).isEmpty();
        assertThat(o.totalWrong()).isZero();
        for (ConsumerOutcome c : o.consumers()) {
            assertThat(c.wrong()).as(c.name()).isEmpty();
            assertThat(c.applied()).as(c.name()).isEqualTo(o.published());
            assertThat(c.coverage().complete()).as(c.name()).isTrue();
        }
        assertThat(o.stallRateRatio()).as("publisher rate during the stall / target")
                .isGreaterThanOrEqualTo(DivergencePromises.DURABLE_MIN_RATE);
        // The stall really reached the broker: catch_up detached the stalled subscriber and replayed to it.
        assertThat(o.brokerCounter("felix_catchup_detached_total")).isPositive();
        assertThat(o.brokerCounter("felix_replayed_events_total")).isPositive();
        assertThat(o.mode().check(o).kept()).isTrue();
    }

    @Test
    void watch_everyMirrorConvergesAfterTheBrokerEndsTheStalledWatchAndThePublisherKeepsItsRate() throws Exception {
        // The demo's defaults (2,000 keys, 400 changes/s, 3 consumers, one stalled, 512-change watch
        // queues) with 3-second phases: a 6-second stall is 2,400 changes, well past what a paused mirror's
        // window and watch queue hold.
        DivergenceOutcome o = run(DivergenceArgs.parse("--mode", "watch", "--duration", "3", "--no-tui"));

        assertWatchPromise(o, 1);
    }

    @Test
    void watch_twoStalledMirrors_500keys_2000perSecond() throws Exception {
        DivergenceConfig config = DivergenceArgs.parse("--mode", "watch", "--stalled", "2", "--keys", "500", "--rate",
                "2000", "--duration", "3", "--no-tui");

        DivergenceOutcome o = run(config);

        assertThat(o.consumers()).hasSize(3);
        assertWatchPromise(o, 2);
    }

    /**
     * Zero wrong keys for every mirror, the publisher at 90% of its target or more during the stall, and
     * proof that each stalled mirror really fell behind (the broker ended its watch) and recovered.
     */
    private static void assertWatchPromise(DivergenceOutcome o, int stalled) {
        assertThat(o.endedEarly()).isEmpty();
        assertThat(o.published()).isPositive().isEqualTo(o.publishedEnd());
        for (ConsumerOutcome c : o.consumers()) {
            assertThat(c.wrong()).as(c.name() + " wrong keys").isEmpty();
            Coverage cov = c.coverage();
            assertThat(cov.silentMissed()).as(c.name() + " changes skipped").isZero();
            assertThat(cov.outOfOrder()).as(c.name() + " changes out of order or twice").isZero();
            assertThat(cov.notReached()).as(c.name() + " changes not reached").isZero();
        }
        assertThat(o.stallRateRatio()).as("publisher rate during the stall / target")
                .isGreaterThanOrEqualTo(DivergencePromises.DURABLE_MIN_RATE);

        assertThat(o.stalledConsumers()).hasSize(stalled);
        for (ConsumerOutcome victim : o.stalledConsumers()) {
            // It fell behind: the broker ended its watch (watch_ended on overflow) and it watched again.
            assertThat(victim.watch().restarts()).as(victim.name() + " watch restarts").isPositive();
            // ... and it recovered: every change after the end was applied (resumed or replaced by a snapshot).
            assertThat(victim.coverage().delivered() + victim.coverage().announcedMissed())
                    .as(victim.name() + " offsets accounted for").isEqualTo(o.publishedEnd());
        }
        assertThat(watchOverflows(o)).as("watches the broker ended for overflowing").isGreaterThanOrEqualTo(stalled);
        assertThat(o.mode().check(o).kept()).as(o.mode().check(o).problems().toString()).isTrue();
    }

    private static long watchOverflows(DivergenceOutcome o) {
        return o.brokerCounters().stream().filter(s -> s.series().startsWith("felix_cache_watch_overflows"))
                .mapToLong(s -> s.value()).sum();
    }
}
