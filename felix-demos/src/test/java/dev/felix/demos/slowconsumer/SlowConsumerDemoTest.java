package dev.felix.demos.slowconsumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The demo's own assertions at a reduced size: 2,000 msg/s, 3 subscribers, 64-byte payloads, the
 * default 512-event queues, 3-second phases (a run is 12 s: the baseline rate is the mean of 4
 * half-second samples, the stall's of 12).
 */
@Timeout(90)
class SlowConsumerDemoTest {

    private static SlowConsumerOutcome run(IsolationPolicy policy) throws Exception {
        SlowConsumerConfig config = new SlowConsumerConfig(2000, 3, 64, 512, 3, List.of(policy), false);
        List<SlowConsumerOutcome> outcomes = SlowConsumerDemo.runPolicies(config,
                SlowConsumerDemo.plainView(System.out));
        SlowConsumerReport.print(System.out, outcomes);
        return outcomes.get(0);
    }

    @Test
    void dropNew_confinesLossToTheStalledConsumerAndAnnouncesIt() throws Exception {
        SlowConsumerOutcome o = run(IsolationPolicies.DROP_NEW);

        assertThat(o.stalledLost()).isPositive();
        // Separation by orders of magnitude, not zero healthy loss (a loaded machine may make one shed a little).
        assertThat(o.healthyLossRate()).isLessThan(SlowConsumerPromises.HEALTHY_LOSS_LIMIT);
        assertThat(o.stalledLost()).isGreaterThan(o.healthyLost() * 100); // upstream's separation, at this size
        assertThat(o.achievedRate()).isPositive();
        for (DashboardOutcome d : o.subscribers()) {
            assertThat(d.endedEarly()).as(d.name()).isNull();
            assertThat(d.coverage().silentMissed()).as(d.name() + ": missed without a gap notice").isZero();
            assertThat(d.coverage().announcedMissed()).as(d.name() + ": gap notices name what the sequence lost")
                    .isEqualTo(d.lost());
        }
        assertThat(o.policy().check(o).kept()).isTrue();
    }

    /**
     * A queue that absorbs the whole stall: under drop_new nobody loses anything. The promise (loss
     * confined to the stalled consumer and announced) is kept; whether a drop happened is not judged.
     */
    @Test
    void dropNew_withAQueueThatAbsorbsTheStall_nobodyLosesAndThatIsAsPromised() throws Exception {
        SlowConsumerConfig roomy = new SlowConsumerConfig(1000, 2, 64, 1 << 20, 1, List.of(IsolationPolicies.DROP_NEW),
                false);
        SlowConsumerOutcome o = SlowConsumerDemo.runPolicies(roomy, SlowConsumerDemo.plainView(System.out)).get(0);
        SlowConsumerReport.print(System.out, List.of(o));
        for (DashboardOutcome d : o.subscribers()) {
            assertThat(d.lost()).as(d.name()).isZero();
            assertThat(d.coverage().complete()).as(d.name() + ": " + d.coverage().describe()).isTrue();
        }
        assertThat(o.policy().check(o).kept()).as(o.policy().check(o).problems().toString()).isTrue();
    }

    @Test
    void catchUp_losesNothingAndThePublisherKeepsItsBaselineRate() throws Exception {
        SlowConsumerOutcome o = run(IsolationPolicies.CATCH_UP);

        for (DashboardOutcome d : o.subscribers()) {
            assertThat(d.endedEarly()).as(d.name()).isNull();
            assertThat(d.lost()).as(d.name() + " lost").isZero();
            assertThat(d.coverage().gapNotices()).as(d.name() + " gap notices").isZero();
            assertThat(d.coverage().silentMissed()).as(d.name()).isZero();
        }
        assertThat(o.baselineRate()).isPositive();
        assertThat(o.degradedToBaseline()).as("publisher rate during the stall / baseline of the same run")
                .isGreaterThanOrEqualTo(SlowConsumerPromises.CATCH_UP_MIN_RATE);
        assertThat(o.brokerFlow()).as("catch_up engaged")
                .anyMatch(s -> s.series().equals("felix_catchup_detached_total") && s.value() > 0);
        assertThat(o.policy().check(o).kept()).isTrue();
    }

    @Test
    void block_losesNothing() throws Exception {
        SlowConsumerOutcome o = run(IsolationPolicies.BLOCK);

        for (DashboardOutcome d : o.subscribers()) {
            assertThat(d.lost()).as(d.name() + " lost").isZero();
            assertThat(d.coverage().gapNotices()).as(d.name() + " gap notices").isZero();
        }
        assertThat(o.brokerDrops()).isEmpty();
        assertThat(o.policy().check(o).kept()).isTrue();
    }
}
