package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.ratis.proto.RaftProtos.LeaderInfoProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

/**
 * {@link PredecessorGrace}: a dead predecessor is declared down as soon as its silence and the answer window allow,
 * a live one that answers the new leader gets the grace of every node. The decisions themselves are checked through
 * {@link FailoverDecider}, as the decider round makes them.
 */
class PredecessorGraceTest {

    private static final long FAILURE_TIMEOUT = 2_000;
    private static final long WINDOW = 500;
    /** When the leadership began in the cases that ask the decider. */
    private static final long ELECTED = 10_000;

    @Test
    void aPredecessorHeardJustBeforeTheElection_isSilentFromThen() {
        // killed at 10 000 (last heard 9 900), this node elected at 10 800
        PredecessorGrace g = PredecessorGrace.atElection("n1", 9_900, 10_800, FAILURE_TIMEOUT, WINDOW);

        assertThat(g.awaitingAnswer()).isTrue();
        assertThat(g.silentFrom()).containsExactlyEntriesOf(Map.of("n1", 9_900L));
    }

    @Test
    void aPredecessorUnheardForLong_isNotDeclaredDownWithinTheAnswerWindow() {
        // after a pause of the whole cluster and a 6 s election: last heard 6 s before this node was elected
        PredecessorGrace g = PredecessorGrace.atElection("n1", 4_000, 10_000, FAILURE_TIMEOUT, WINDOW);

        assertThat(g.silentFrom()).as("silent from the election minus the timeout plus the window")
                .containsExactlyEntriesOf(Map.of("n1", 10_000 - FAILURE_TIMEOUT + WINDOW));
        assertThat(nodeDown(g, 10_000 + WINDOW - 1)).as("within the window").isFalse();
        assertThat(nodeDown(g, 10_000 + WINDOW)).as("at its end, not having answered").isTrue();
    }

    @Test
    void aPredecessorThatAnswers_hasTheFullFailureTimeoutFromTheElection() {
        PredecessorGrace g = PredecessorGrace.atElection("n1", 4_000, 10_000, FAILURE_TIMEOUT, WINDOW);
        g.answered();

        assertThat(g.awaitingAnswer()).isFalse();
        assertThat(g.silentFrom()).isEmpty();
        assertThat(nodeDown(g, 10_000 + WINDOW)).isFalse();
        assertThat(nodeDown(g, 10_000 + FAILURE_TIMEOUT - 1)).isFalse();
        assertThat(nodeDown(g, 10_000 + FAILURE_TIMEOUT)).as("still silent a failure timeout after the election")
                .isTrue();
    }

    @Test
    void theSilenceNeverStartsAfterTheElection_andTheWindowIsBounded() {
        // a clock oddity: "last heard" after the election
        assertThat(PredecessorGrace.atElection("n1", 12_000, 10_000, FAILURE_TIMEOUT, WINDOW).silentFrom())
                .containsExactlyEntriesOf(Map.of("n1", 10_000L));
        assertThatThrownBy(() -> PredecessorGrace.atElection("n1", 9_000, 10_000, FAILURE_TIMEOUT,
                FAILURE_TIMEOUT + 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0..2000");
        assertThat(PredecessorGrace.none().awaitingAnswer()).isFalse();
        assertThat(PredecessorGrace.none().silentFrom()).isEmpty();
        assertThat(PredecessorGrace.none().nodeId()).isNull();
    }

    @Test
    void anAnswerCountsOnlyIfLaterThanTheLeadershipsStart() {
        // Ratis starts a follower's last response one RPC timeout (1 s) before the leadership: 1 300 ms ago here,
        // for a leadership 300 ms old
        RoleInfoProto role = leader(300, Map.of("n1", 1_300L, "n3", 40L));

        assertThat(PredecessorGrace.answeredThisLeader(role, "n1")).as("never answered").isFalse();
        assertThat(PredecessorGrace.answeredThisLeader(role, "n3")).as("answered 40 ms ago").isTrue();
        assertThat(PredecessorGrace.answeredThisLeader(role, "n9")).as("not a follower").isFalse();
        assertThat(PredecessorGrace.answeredThisLeader(leader(300, Map.of("n1", 300L)), "n1"))
                .as("exactly when the leadership began").isFalse();
        assertThat(PredecessorGrace.answeredThisLeader(RoleInfoProto.newBuilder().setRole(RaftPeerRole.FOLLOWER)
                .setRoleElapsedTimeMs(5_000).build(), "n1")).as("no longer leading").isFalse();
    }

    @Test
    void answeredAt_datesEachRealAnswer_byTheLeadersClock() {
        RoleInfoProto role = leader(300, Map.of("n1", 1_300L, "n3", 40L, "n4", 299L));
        assertThat(PredecessorGrace.answeredAt(role, 50_000)).as("n1 never answered this leader")
                .containsOnly(Map.entry("n3", 49_960L), Map.entry("n4", 49_701L));
        assertThat(PredecessorGrace.answeredAt(RoleInfoProto.newBuilder().setRole(RaftPeerRole.FOLLOWER)
                .setRoleElapsedTimeMs(5_000).build(), 50_000)).as("not leading").isEmpty();
    }

    /**
     * Whether the decider declares n1 (up, the predecessor) down at {@code now}, having heard nothing from it, in a
     * leadership that began at {@link #ELECTED}.
     */
    private static boolean nodeDown(PredecessorGrace g, long now) {
        ClusterState state = ClusterState.EMPTY;
        state = state.apply(new Command.InitCluster("felix", 1), 1).state();
        state = state.apply(new Command.RegisterNode("n1", "i-n1", "h:1", "h:2", "h:3", 1), 2).state();
        List<FailoverDecider.Decision> ds = FailoverDecider.decide(state, Map.of(), Map.of(), g.silentFrom(), now,
                ELECTED, FAILURE_TIMEOUT);
        return ds.stream().anyMatch(d -> d.kind() == FailoverDecider.Kind.NODE_DOWN);
    }

    private static RoleInfoProto leader(long roleElapsedMs, Map<String, Long> lastResponseElapsedMs) {
        LeaderInfoProto.Builder leader = LeaderInfoProto.newBuilder().setTerm(3);
        lastResponseElapsedMs.forEach((id, elapsed) -> leader.addFollowerInfo(ServerRpcProto.newBuilder()
                .setId(RaftPeerProto.newBuilder().setId(ByteString.copyFromUtf8(id)))
                .setLastRpcElapsedTimeMs(elapsed)));
        return RoleInfoProto.newBuilder().setRole(RaftPeerRole.LEADER).setRoleElapsedTimeMs(roleElapsedMs)
                .setLeaderInfo(leader).build();
    }
}
