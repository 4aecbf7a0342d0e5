package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.cluster.ReplicaReport;
import dev.felix.cluster.ShardKey;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link Liveness}: what the Raft leader keeps of each node's heartbeats, and which it drops as late. */
class LivenessTest {

    private static final ShardKey KEY = ShardKey.stream(42, 0);

    private final AtomicLong now = new AtomicLong(1_000);
    private final Liveness liveness = new Liveness(now::get);
    private final AtomicInteger newlyFenced = new AtomicInteger();

    {
        liveness.onNewlyFenced(newlyFenced::incrementAndGet);
    }

    @Test
    void aHeartbeatIsRecordedWithWhenItWasHeard() {
        assertThat(liveness.record(new Heartbeat("n1", 7, 1, List.of(report(3, 100, -1))))).isTrue();

        FailoverDecider.Heard heard = liveness.snapshot().get("n1");
        assertThat(heard.atMillis()).isEqualTo(1_000);
        assertThat(heard.incarnation()).isEqualTo(7);
        assertThat(heard.sequence()).isEqualTo(1);
        assertThat(heard.report(KEY)).isEqualTo(report(3, 100, -1));
    }

    @Test
    void aLateHeartbeat_neitherPutsOlderReportsBack_norDatesTheNodesLastSignOfLife() {
        liveness.record(new Heartbeat("n1", 7, 5, List.of(report(3, 100, -1))));
        now.set(1_500);
        liveness.record(new Heartbeat("n1", 7, 6, List.of(report(3, 160, -1))));
        now.set(1_900);

        // number 4 was retried, or waited in a connection, and arrives after 6
        assertThat(liveness.record(new Heartbeat("n1", 7, 4, List.of(report(3, 40, -1))))).isFalse();
        // and a duplicate of the last one (a retry at the same call) is late too
        assertThat(liveness.record(new Heartbeat("n1", 7, 6, List.of(report(3, 160, -1))))).isFalse();

        FailoverDecider.Heard heard = liveness.snapshot().get("n1");
        assertThat(heard.atMillis()).isEqualTo(1_500);
        assertThat(heard.sequence()).isEqualTo(6);
        assertThat(heard.report(KEY).logEnd()).isEqualTo(160);
        assertThat(liveness.received()).isEqualTo(4);
        assertThat(liveness.stale()).isEqualTo(2);
    }

    @Test
    void aLateHeartbeatThatReportsAFencedReplica_doesNotWakeTheDecider() {
        liveness.record(new Heartbeat("n1", 7, 2, List.of(report(3, 100, 4))));
        assertThat(newlyFenced).hasValue(1);

        // an older heartbeat with a higher fenced epoch cannot have been sent after the newer one
        liveness.record(new Heartbeat("n1", 7, 1, List.of(report(3, 100, 5))));

        assertThat(newlyFenced).hasValue(1);
        assertThat(liveness.snapshot().get("n1").report(KEY).fencedEpoch()).isEqualTo(4);
    }

    @Test
    void aNewIncarnation_isRecordedWhateverItsNumber() {
        liveness.record(new Heartbeat("n1", 7, 900, List.of(report(3, 100, -1))));
        now.set(2_000);

        // restarted: its numbers start again from 1
        assertThat(liveness.record(new Heartbeat("n1", 8, 1, List.of()))).isTrue();

        FailoverDecider.Heard heard = liveness.snapshot().get("n1");
        assertThat(heard.incarnation()).isEqualTo(8);
        assertThat(heard.atMillis()).isEqualTo(2_000);
        assertThat(heard.reports()).isEmpty();
    }

    @Test
    void anUnnumberedHeartbeat_fromANodeOfAnEarlierVersion_isAlwaysRecorded() {
        liveness.record(new Heartbeat("n1", 7, Heartbeat.UNNUMBERED, List.of(report(3, 100, -1))));
        now.set(1_200);

        assertThat(liveness.record(new Heartbeat("n1", 7, Heartbeat.UNNUMBERED, List.of(report(3, 120, -1)))))
                .isTrue();

        assertThat(liveness.snapshot().get("n1").atMillis()).isEqualTo(1_200);
        assertThat(liveness.stale()).isZero();
    }

    @Test
    void eachNodeHasItsOwnNumbers() {
        liveness.record(new Heartbeat("n1", 7, 50, List.of()));

        assertThat(liveness.record(new Heartbeat("n2", 7, 3, List.of()))).isTrue();

        assertThat(liveness.snapshot()).containsOnlyKeys("n1", "n2");
    }

    private static ReplicaReport report(long lastEpoch, long logEnd, long fencedEpoch) {
        return new ReplicaReport(KEY, lastEpoch, logEnd, logEnd, fencedEpoch);
    }
}
