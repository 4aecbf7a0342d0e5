package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.cluster.NodeStatus;
import dev.felix.cluster.ReplicaReport;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.cluster.ShardStatus;
import dev.felix.core.Consistency;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.cache.CacheConfig;
import dev.felix.core.cache.CacheName;
import dev.felix.core.metadata.CacheRecord;
import dev.felix.core.metadata.StreamRecord;
import dev.felix.testing.ManualClock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link FailoverDecider}: a controllable clock, hand-built reports, no Raft. */
class FailoverDeciderTest {

    private static final long TIMEOUT = 3000;

    private final ManualClock clock = new ManualClock();
    private final Liveness liveness = new Liveness(clock::millis);
    /** Each heartbeat's number (one counter for every node: numbers need only rise per node). */
    private final AtomicLong sequence = new AtomicLong();
    private final Map<String, Long> registered = new HashMap<>();
    private ClusterState state = ClusterState.EMPTY;
    private long index;
    private long leaderSince;

    private Object apply(Command c) {
        ClusterState.Applied a = state.apply(c, ++index);
        state = a.state();
        assertThat(a.outcome()).isInstanceOf(Outcome.Done.class);
        return ((Outcome.Done) a.outcome()).value();
    }

    private void nodes(String... ids) {
        apply(new Command.InitCluster("felix", 1));
        for (String id : ids) {
            apply(new Command.RegisterNode(id, "i-" + id, "h:1", "h:2", "h:3", 1));
        }
        apply(new Command.CreateTenant("t"));
    }

    private void heartbeat(String node, ReplicaReport... reports) {
        liveness.record(new Heartbeat(node, 1, sequence.incrementAndGet(), List.of(reports)));
    }

    private List<FailoverDecider.Decision> decide() {
        return FailoverDecider.decide(state, liveness.snapshot(), registered, clock.millis(), leaderSince, TIMEOUT);
    }

    /** Decides and applies every decision, as the Raft leader would. */
    private List<FailoverDecider.Decision> round() {
        List<FailoverDecider.Decision> ds = decide();
        for (FailoverDecider.Decision d : ds) {
            apply(d.command());
        }
        return ds;
    }

    private void advance(long ms) {
        clock.advance(Duration.ofMillis(ms));
    }

    private ShardKey create(String name, StreamConfig config, String leader) {
        StreamRecord r = (StreamRecord) apply(new Command.CreateStream(new StreamName("t", "ns", name), config));
        return state.placements().values().stream().filter(p -> p.key().uid() == r.uid() && p.leader().equals(leader))
                .map(ShardPlacement::key).findFirst().orElseThrow();
    }

    private ShardPlacement p(ShardKey key) {
        return state.placements().get(key);
    }

    private static StreamConfig durable(Consistency c, int shards) {
        return new StreamConfig(shards, true, StreamConfig.Fsync.ON_COMMIT, 0, null, c, 3);
    }

    private void everyoneButHeartbeats(String silent) {
        for (String id : state.nodes().keySet()) {
            if (!id.equals(silent)) {
                heartbeat(id);
            }
        }
    }

    @Test
    void aNodeSilentForTheFailureTimeout_goesDown_andUpAgainWhenHeard() {
        nodes("a", "b", "c");
        leaderSince = clock.millis();
        everyoneButHeartbeats(null);
        advance(TIMEOUT - 1);
        everyoneButHeartbeats("c");
        assertThat(decide()).isEmpty();
        advance(1);
        // b and a were heard 1 ms ago; c last TIMEOUT ms ago
        List<FailoverDecider.Decision> ds = round();
        assertThat(ds).extracting(FailoverDecider.Decision::command)
                .containsExactly(new Command.SetNodeStatus("c", NodeStatus.DOWN, 1));
        assertThat(ds.get(0).kind()).isEqualTo(FailoverDecider.Kind.NODE_DOWN);
        assertThat(decide()).as("decided once").isEmpty();

        heartbeat("c");
        ds = round();
        assertThat(ds).extracting(FailoverDecider.Decision::command)
                .containsExactly(new Command.SetNodeStatus("c", NodeStatus.UP, 1));
        assertThat(ds.get(0).kind()).isEqualTo(FailoverDecider.Kind.NODE_UP);
    }

    @Test
    void aNodeWhoseRaftServerAnswers_hasTwiceTheFailureTimeoutForItsHeartbeats_andOneThatStoppedAnsweringDoesNot() {
        nodes("a", "b", "c");
        leaderSince = clock.millis();
        everyoneButHeartbeats(null);
        long lastHeartbeat = clock.millis();
        // b's and c's heartbeats stop. b's Raft server keeps answering this leader (its heartbeats are lost in a
        // connection that stopped answering); c's stopped answering a little after its last heartbeat (frozen).
        Map<String, Long> answered = new HashMap<>();
        for (long t = 0; t < 2 * TIMEOUT; t += 250) {
            answered.put("b", clock.millis());
            if (t <= 250) {
                answered.put("c", clock.millis());
            }
            heartbeat("a");
            FailoverDecider.Round round = FailoverDecider.round(state, liveness.snapshot(), registered,
                    Map.of(), answered, clock.millis(), leaderSince, TIMEOUT);
            List<FailoverDecider.Decision> ds = round.decisions();
            long silent = clock.millis() - lastHeartbeat;
            if (silent < TIMEOUT) {
                assertThat(ds).as("%d ms after the last heartbeat", silent).isEmpty();
                assertThat(round.spared()).as("nobody silent for the failure timeout yet").isEmpty();
            } else {
                assertThat(ds).as("%d ms after the last heartbeat: c declared down, b not", silent)
                        .extracting(FailoverDecider.Decision::command)
                        .containsExactly(new Command.SetNodeStatus("c", NodeStatus.DOWN, 1));
                assertThat(round.spared()).as("b stays up for its Raft answers alone").containsExactly("b");
                // Side by side: without the Raft answers, b is declared down with c.
                assertThat(FailoverDecider.decide(state, liveness.snapshot(), registered, Map.of(), Map.of(),
                        clock.millis(), leaderSince, TIMEOUT)).extracting(FailoverDecider.Decision::command)
                        .containsExactlyInAnyOrder(new Command.SetNodeStatus("b", NodeStatus.DOWN, 1),
                                new Command.SetNodeStatus("c", NodeStatus.DOWN, 1));
            }
            advance(250);
        }
        // Twice the failure timeout: b answers Raft but has not heartbeated since; it is stuck, and declared down.
        answered.put("b", clock.millis());
        heartbeat("a");
        FailoverDecider.Round last = FailoverDecider.round(state, liveness.snapshot(), registered, Map.of(), answered,
                clock.millis(), leaderSince, TIMEOUT);
        assertThat(last.decisions()).extracting(FailoverDecider.Decision::command)
                .contains(new Command.SetNodeStatus("b", NodeStatus.DOWN, 1));
        assertThat(last.spared()).as("declared down, not spared").isEmpty();
    }

    @Test
    void aNodeThatStopsAnsweringRaftLate_isDeclaredDownAWindowAfterItsLastAnswer_notAfterTwiceTheTimeout() {
        nodes("a", "b");
        leaderSince = clock.millis();
        everyoneButHeartbeats(null);
        long lastHeartbeat = clock.millis();
        long window = FailoverDecider.raftAnswerWindow(TIMEOUT);
        assertThat(window).as("half the failure timeout, at most 1 s").isEqualTo(1_000);
        // b's heartbeats stop; its Raft server answers until 2.5 s later, then it stops too (frozen)
        long stoppedAt = lastHeartbeat + 2_500;
        Map<String, Long> answered = new HashMap<>();
        while (clock.millis() < stoppedAt + window) {
            if (clock.millis() <= stoppedAt) {
                answered.put("b", clock.millis());
            }
            heartbeat("a");
            assertThat(FailoverDecider.decide(state, liveness.snapshot(), registered, Map.of(), answered,
                    clock.millis(), leaderSince, TIMEOUT)).as("%d ms after b's last heartbeat",
                    clock.millis() - lastHeartbeat).isEmpty();
            advance(100);
        }
        heartbeat("a");
        assertThat(FailoverDecider.decide(state, liveness.snapshot(), registered, Map.of(), answered,
                clock.millis(), leaderSince, TIMEOUT)).as("a window after b's last answer")
                .extracting(FailoverDecider.Decision::command)
                .containsExactly(new Command.SetNodeStatus("b", NodeStatus.DOWN, 1));
    }

    @Test
    void aNewLeaderGrantsEveryNodeAFullTimeoutOfGrace() {
        nodes("a", "b");
        // heard long before this leader started leading: those heartbeats do not count
        heartbeat("b");
        advance(10 * TIMEOUT);
        leaderSince = clock.millis();
        heartbeat("a");
        advance(TIMEOUT - 1);
        heartbeat("a");
        assertThat(decide()).as("b has had less than a full timeout under this leader").isEmpty();
        advance(1);
        assertThat(decide()).extracting(FailoverDecider.Decision::command)
                .containsExactly(new Command.SetNodeStatus("b", NodeStatus.DOWN, 1));
    }

    @Test
    void thePreviousRaftLeader_isSilentFromWhenThisLeaderLastHeardIt_notFromThisLeadershipsStart() {
        nodes("a", "b", "c");
        long lastHeardFromA = clock.millis(); // b followed a until a vanished
        advance(800); // the election timeout and the election
        leaderSince = clock.millis();
        heartbeat("b");
        heartbeat("c");
        Map<String, Long> silentFrom = Map.of("a", lastHeardFromA);
        advance(TIMEOUT - 800 - 1);
        heartbeat("b");
        heartbeat("c");
        assertThat(FailoverDecider.decide(state, liveness.snapshot(), registered, silentFrom, clock.millis(),
                leaderSince, TIMEOUT)).isEmpty();
        advance(1);
        assertThat(FailoverDecider.decide(state, liveness.snapshot(), registered, silentFrom, clock.millis(),
                leaderSince, TIMEOUT)).as("a failure timeout after its last contact, not after the election")
                .extracting(FailoverDecider.Decision::command)
                .containsExactly(new Command.SetNodeStatus("a", NodeStatus.DOWN, 1));
        assertThat(decide()).as("without it, a has a whole timeout of grace from leaderSince").isEmpty();

        // The previous leader heard by this leader (it was alive after all) is as live as anyone.
        heartbeat("a");
        assertThat(FailoverDecider.decide(state, liveness.snapshot(), registered, silentFrom, clock.millis(),
                leaderSince, TIMEOUT)).isEmpty();
    }

    @Test
    void aHeartbeatThatNewlyFencesAUnit_asksForADecisionAtOnce_andOnlyThen() {
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        liveness.onNewlyFenced(asked::incrementAndGet);
        ShardKey key = ShardKey.stream(7, 0);
        heartbeat("b", new ReplicaReport(key, 1, 10, 10, -1));
        assertThat(asked).as("following, not fenced").hasValue(0);
        heartbeat("b", new ReplicaReport(key, 1, 10, 10, 1));
        assertThat(asked).as("fenced at epoch 1: the failover may be decidable now").hasValue(1);
        heartbeat("b", new ReplicaReport(key, 1, 10, 10, 1));
        assertThat(asked).as("the same report again is no news").hasValue(1);
        heartbeat("c", new ReplicaReport(key, 1, 10, 10, 1));
        assertThat(asked).as("another replica's first fenced report is").hasValue(2);
        heartbeat("b", new ReplicaReport(key, 2, 12, 12, 2));
        assertThat(asked).as("fenced at a later epoch").hasValue(3);
    }

    @Test
    void aDownNodeHeardBeforeThisLeadershipStaysDown() {
        nodes("a", "b");
        apply(new Command.SetNodeStatus("b", NodeStatus.DOWN, 1));
        heartbeat("b");
        advance(100);
        leaderSince = clock.millis();
        assertThat(decide()).isEmpty();
    }

    @Test
    void aRegistrationGrantsGraceToo() {
        nodes("a", "b");
        leaderSince = clock.millis();
        advance(TIMEOUT);
        heartbeat("a");
        registered.put("b", clock.millis() - 10); // b re-registered 10 ms ago, no heartbeat yet
        assertThat(decide()).isEmpty();
        advance(TIMEOUT - 10);
        heartbeat("a");
        assertThat(decide()).extracting(FailoverDecider.Decision::command)
                .containsExactly(new Command.SetNodeStatus("b", NodeStatus.DOWN, 1));
    }

    @Test
    void aRoundAfterTheDecidersOwnPause_countsNoSilenceFromBeforeIt() {
        // Every node heartbeats; then this process is paused (SIGSTOP) for longer than the failure timeout. The
        // heartbeats sent meanwhile wait in its sockets, and the first round after the pause runs before they are read.
        nodes("a", "b");
        leaderSince = clock.millis();
        DeciderPauses pauses = new DeciderPauses(TIMEOUT / 2);
        heartbeat("a");
        heartbeat("b");
        pauses.roundStarts(clock.millis());
        pauses.roundEnds(clock.millis());
        advance(TIMEOUT + 500);

        assertThat(pauses.roundStarts(clock.millis())).isEqualTo(TIMEOUT + 500);
        assertThat(decide()).as("without the pause's mark, both nodes look silent for the whole pause").hasSize(2);
        assertThat(decideRound(PredecessorGrace.none(), pauses)).as("the round after the pause").isEmpty();
        pauses.roundEnds(clock.millis());

        // From the pause on, silence counts again: a stays, b has stopped.
        advance(TIMEOUT - 10);
        heartbeat("a");
        assertThat(decideRound(PredecessorGrace.none(), pauses)).isEmpty();
        advance(20);
        assertThat(decideRound(PredecessorGrace.none(), pauses)).extracting(FailoverDecider.Decision::command)
                .containsExactly(new Command.SetNodeStatus("b", NodeStatus.DOWN, 1));
    }

    @Test
    void aRoundWithoutAPause_countsThePredecessorsSilenceFromWhenThisNodeLastHeardIt() {
        // Elected 1.5 s after it last heard p (the Raft leader it followed, now killed): p is declared down one failure
        // timeout after that contact, not one after the election.
        DeciderPauses pauses = new DeciderPauses(TIMEOUT / 2);
        long lastHeardFromP = clock.millis();
        PredecessorGrace predecessor = electedHalfATimeoutAfterHearingP();
        for (long t = 0; t < TIMEOUT / 2 - 20; t += 250) { // decider rounds on time: no pause
            heartbeat("a");
            pauses.roundStarts(clock.millis());
            assertThat(decideRound(predecessor, pauses)).isEmpty();
            pauses.roundEnds(clock.millis());
            advance(250);
        }
        advance(lastHeardFromP + TIMEOUT + 10 - clock.millis());
        heartbeat("a");

        pauses.roundStarts(clock.millis());
        assertThat(decideRound(predecessor, pauses)).as("p silent for the failure timeout, %d ms into this leadership",
                        clock.millis() - leaderSince)
                .extracting(FailoverDecider.Decision::command)
                .containsExactly(new Command.SetNodeStatus("p", NodeStatus.DOWN, 1));
    }

    @Test
    void aRoundAfterThePause_countsThePredecessorsSilenceFromThePauseToo() {
        // Elected while following p, last heard from it long enough ago that it is due to be declared down; then
        // this process is paused, and nothing is heard from p after the pause either.
        DeciderPauses pauses = new DeciderPauses(TIMEOUT / 2);
        PredecessorGrace predecessor = electedHalfATimeoutAfterHearingP();
        heartbeat("a");
        pauses.roundStarts(clock.millis());
        pauses.roundEnds(clock.millis());
        advance(TIMEOUT);
        heartbeat("a");

        pauses.roundStarts(clock.millis());
        assertThat(FailoverDecider.decide(state, liveness.snapshot(), registered, predecessor.silentFrom(),
                clock.millis(), leaderSince, TIMEOUT)).as("without the pause's mark").hasSize(1);
        assertThat(decideRound(predecessor, pauses)).as("the round after the pause").isEmpty();
        pauses.roundEnds(clock.millis());

        advance(TIMEOUT - 10);
        heartbeat("a");
        assertThat(decideRound(predecessor, pauses)).isEmpty();
        advance(20);
        assertThat(decideRound(predecessor, pauses)).extracting(FailoverDecider.Decision::command)
                .containsExactly(new Command.SetNodeStatus("p", NodeStatus.DOWN, 1));
    }

    /** Nodes a and p; this node, following p, last hears it now and is elected half a failure timeout later. */
    private PredecessorGrace electedHalfATimeoutAfterHearingP() {
        nodes("a", "p");
        long lastHeardFromP = clock.millis();
        advance(TIMEOUT / 2);
        leaderSince = clock.millis();
        return PredecessorGrace.atElection("p", lastHeardFromP, leaderSince, TIMEOUT, 500);
    }

    private List<FailoverDecider.Decision> decideRound(PredecessorGrace predecessor, DeciderPauses pauses) {
        return FailoverDecider.decideRound(state, liveness.snapshot(), registered, Map.of(), predecessor, pauses,
                clock.millis(), leaderSince, TIMEOUT).decisions();
    }

    @Test
    void aHeartbeatOfAnotherIncarnationDoesNotBringANodeUp() {
        nodes("a", "b");
        apply(new Command.SetNodeStatus("b", NodeStatus.DOWN, 1));
        leaderSince = clock.millis();
        liveness.record(new Heartbeat("b", 2, 1, List.of()));
        heartbeat("a");
        assertThat(decide()).isEmpty();
    }

    @Test
    void quorum_needsFencedReportsOfAMajority_thenPromotesTheHighestLastEpochAndLogEnd() {
        nodes("a", "b", "c", "d", "e");
        leaderSince = clock.millis();
        StreamConfig five = new StreamConfig(1, true, StreamConfig.Fsync.ON_COMMIT, 0, null, Consistency.QUORUM, 5);
        ShardKey key = create("q", five, "a");
        assertThat(p(key).majority()).isEqualTo(3);
        apply(new Command.SetNodeStatus("a", NodeStatus.DOWN, 1));

        // no fenced reports yet: unavailable, leader and epoch kept
        everyoneButHeartbeats("a");
        List<FailoverDecider.Decision> ds = round();
        assertThat(ds).extracting(FailoverDecider.Decision::command)
                .containsExactly(new Command.SetUnavailable(key, 1, FailoverDecider.NO_MAJORITY));
        assertThat(ds.get(0).kind()).isEqualTo(FailoverDecider.Kind.UNAVAILABLE);
        assertThat(p(key).leader()).isEqualTo("a");
        assertThat(decide()).as("unavailable once").isEmpty();

        // two fenced reports (of 5 replicas, majority 3) and one not fenced, one fenced at an older epoch
        heartbeat("b", new ReplicaReport(key, 1, 100, 100, 1));
        heartbeat("c", new ReplicaReport(key, 1, 120, 120, 1));
        heartbeat("d", new ReplicaReport(key, 1, 500, 500, -1));
        heartbeat("e", new ReplicaReport(key, 1, 900, 900, 0));
        assertThat(decide()).isEmpty();

        // a third fenced report: promote the highest (lastEpoch, logEnd) among the fenced
        heartbeat("d", new ReplicaReport(key, 1, 110, 110, 1));
        ds = round();
        assertThat(ds).extracting(FailoverDecider.Decision::command)
                .containsExactly(new Command.SetLeader(key, "c", 1, null));
        assertThat(ds.get(0).kind()).isEqualTo(FailoverDecider.Kind.PROMOTED);
        assertThat(p(key).leader()).isEqualTo("c");
        assertThat(p(key).epoch()).isEqualTo(2);
        assertThat(p(key).status()).isEqualTo(ShardStatus.ONLINE);
        assertThat(decide()).as("the new leader is up: nothing more").isEmpty();
    }

    @Test
    void quorum_lastEpochWinsOverLogEnd_andTiesGoToTheLowestNodeId() {
        nodes("a", "b", "c");
        leaderSince = clock.millis();
        ShardKey key = create("q", durable(Consistency.QUORUM, 1), "a");
        apply(new Command.SetNodeStatus("a", NodeStatus.DOWN, 1));
        heartbeat("b", new ReplicaReport(key, 3, 10, 10, 1));
        heartbeat("c", new ReplicaReport(key, 2, 99, 99, 1));
        assertThat(decide()).extracting(FailoverDecider.Decision::command)
                .containsExactly(new Command.SetLeader(key, "b", 1, null));

        heartbeat("b", new ReplicaReport(key, 2, 99, 99, 1));
        assertThat(decide()).extracting(FailoverDecider.Decision::command)
                .containsExactly(new Command.SetLeader(key, "b", 1, null));
        heartbeat("c", new ReplicaReport(key, 2, 100, 100, 1));
        assertThat(decide()).extracting(FailoverDecider.Decision::command)
                .containsExactly(new Command.SetLeader(key, "c", 1, null));
    }

    @Test
    void quorum_reportsOfDownStaleOrEarlierLeadershipNodesDoNotCount() {
        nodes("a", "b", "c");
        ShardKey key = create("q", durable(Consistency.QUORUM, 1), "a");
        apply(new Command.SetNodeStatus("a", NodeStatus.DOWN, 1));
        heartbeat("b", new ReplicaReport(key, 1, 10, 10, 1));
        advance(10);
        leaderSince = clock.millis(); // b's report came to an earlier leadership
        heartbeat("c", new ReplicaReport(key, 1, 10, 10, 1));
        assertThat(decide()).extracting(FailoverDecider.Decision::command)
                .containsExactly(new Command.SetUnavailable(key, 1, FailoverDecider.NO_MAJORITY));
        heartbeat("b", new ReplicaReport(key, 1, 10, 10, 1));
        advance(TIMEOUT); // both reports are now a failure timeout old
        assertThat(decide()).extracting(FailoverDecider.Decision::kind)
                .doesNotContain(FailoverDecider.Kind.PROMOTED);
    }

    @Test
    void leaderMode_isNeverPromoted_andReportsTheExactWords_withoutTouchingTheEpoch() {
        nodes("a", "b", "c");
        leaderSince = clock.millis();
        ShardKey key = create("l", durable(Consistency.LEADER, 1), "a");
        apply(new Command.SetNodeStatus("a", NodeStatus.DOWN, 1));
        heartbeat("b", new ReplicaReport(key, 1, 50, 50, 1));
        heartbeat("c", new ReplicaReport(key, 1, 60, 60, 1));
        List<FailoverDecider.Decision> ds = round();
        assertThat(ds).extracting(FailoverDecider.Decision::command)
                .containsExactly(new Command.SetUnavailable(key, 1,
                        "the leader is gone and no replica holding this shard's log can take over"));
        for (int i = 0; i < 10; i++) {
            advance(TIMEOUT);
            heartbeat("b", new ReplicaReport(key, 1, 50, 50, 1));
            heartbeat("c", new ReplicaReport(key, 1, 60, 60, 1));
            assertThat(round()).isEmpty();
        }
        assertThat(p(key).epoch()).isEqualTo(1);
        assertThat(p(key).leader()).isEqualTo("a");
        assertThat(p(key).status()).isEqualTo(ShardStatus.UNAVAILABLE);
    }

    @Test
    void logCaches_areLeaderMode() {
        nodes("a", "b", "c");
        leaderSince = clock.millis();
        CacheRecord c = (CacheRecord) apply(new Command.CreateCache(new CacheName("t", "ns", "c"),
                CacheConfig.log(StreamConfig.Fsync.ON_COMMIT)));
        ShardKey key = ShardKey.cache(c.uid());
        String leader = p(key).leader();
        apply(new Command.SetNodeStatus(leader, NodeStatus.DOWN, 1));
        assertThat(decide()).extracting(FailoverDecider.Decision::command)
                .containsExactly(new Command.SetUnavailable(key, 1, FailoverDecider.LEADER_GONE));
    }

    @Test
    void unitsWithoutALog_moveToTheLeastLoadedUpNode() {
        nodes("a", "b", "c");
        leaderSince = clock.millis();
        create("busy", new StreamConfig(2, true, StreamConfig.Fsync.PERIODIC, 0, null, Consistency.LEADER, 1), "a");
        // a leads one, b leads one, c none: then these go a, b, c ... the one led by a:
        StreamRecord eph = (StreamRecord) apply(new Command.CreateStream(new StreamName("t", "ns", "e"),
                StreamConfig.ephemeral()));
        ShardKey key = ShardKey.stream(eph.uid(), 0);
        assertThat(p(key).leader()).isEqualTo("c");
        CacheRecord mem = (CacheRecord) apply(new Command.CreateCache(new CacheName("t", "ns", "m"),
                CacheConfig.memory()));
        ShardKey cacheKey = ShardKey.cache(mem.uid());
        assertThat(p(cacheKey).leader()).isEqualTo("a");

        apply(new Command.SetNodeStatus("c", NodeStatus.DOWN, 1));
        apply(new Command.SetNodeStatus("a", NodeStatus.DOWN, 1));
        List<FailoverDecider.Decision> ds = round();
        // b is the only up node; the durable leader-mode shard of a goes unavailable instead
        assertThat(ds).extracting(FailoverDecider.Decision::command).contains(
                new Command.SetLeader(key, "b", 1, List.of("b")),
                new Command.SetLeader(cacheKey, "b", 1, List.of("b")));
        assertThat(ds).filteredOn(d -> d.kind() == FailoverDecider.Kind.MOVED).hasSize(2);
        assertThat(p(key).replicas()).containsExactly("b");
        assertThat(p(key).epoch()).as("a moved unit is a new incarnation").isEqualTo(2);
    }

    @Test
    void unitsWithoutALog_spreadOverTheUpNodesWhenSeveralMoveAtOnce() {
        nodes("a", "b", "c");
        leaderSince = clock.millis();
        StreamRecord eph = (StreamRecord) apply(new Command.CreateStream(new StreamName("t", "ns", "e"),
                StreamConfig.ephemeral(6)));
        apply(new Command.SetNodeStatus("a", NodeStatus.DOWN, 1));
        round();
        Map<String, Integer> leads = new HashMap<>();
        for (int s = 0; s < 6; s++) {
            leads.merge(p(ShardKey.stream(eph.uid(), s)).leader(), 1, Integer::sum);
        }
        assertThat(leads).containsOnlyKeys("b", "c").containsEntry("b", 3).containsEntry("c", 3);
    }

    @Test
    void aStaleDecisionIsRefusedByApply() {
        nodes("a", "b", "c");
        leaderSince = clock.millis();
        ShardKey key = create("q", durable(Consistency.QUORUM, 1), "a");
        apply(new Command.SetNodeStatus("a", NodeStatus.DOWN, 1));
        heartbeat("b", new ReplicaReport(key, 1, 10, 10, 1));
        heartbeat("c", new ReplicaReport(key, 1, 20, 20, 1));
        List<FailoverDecider.Decision> first = decide();
        List<FailoverDecider.Decision> second = decide(); // a second leader's view of the same moment
        apply(first.get(0).command());
        ClusterState.Applied again = state.apply(second.get(0).command(), ++index);
        assertThat(again.outcome()).isInstanceOfSatisfying(Outcome.Refused.class,
                r -> assertThat(r.error().message()).contains("epoch 2, not 1"));
        assertThat(again.state()).isSameAs(state);
    }
}
