package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.felix.cluster.ClusterView;
import dev.felix.cluster.NodeInfo;
import dev.felix.cluster.NodeStatus;
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
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Three real {@link RaftMetadata} nodes in one JVM (own data dirs, Raft over mutual TLS on loopback). */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RaftMetadataClusterTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final StreamName ORDERS = new StreamName("t1", "ns", "orders");

    @TempDir
    Path dir;
    TestNodes nodes;

    @BeforeEach
    void setUp() {
        nodes = new TestNodes(dir);
    }

    @AfterEach
    void tearDown() {
        nodes.close();
    }

    @Test
    void bootstrapAndTwoJoins_streamWithThreeReplicasIsTheSameOnEveryNode() throws Exception {
        List<RaftMetadata> all = nodes.cluster(3);
        RaftMetadata n1 = all.get(0);
        List<Long> versions = new CopyOnWriteArrayList<>();
        all.get(2).addListener((view, version) -> versions.add(version));

        for (RaftMetadata m : all) {
            assertThat(m.nodes()).extracting(NodeInfo::nodeId).containsExactly("n1", "n2", "n3");
            assertThat(m.raftStatus().members()).containsExactly("n1", "n2", "n3");
            assertThat(m.node(m.localNodeId()).orElseThrow().raftAddress()).isEqualTo(m.raftAddress());
            assertThat(m.node(m.localNodeId()).orElseThrow().incarnation()).isEqualTo(m.incarnation());
        }
        n1.createTenant("t1").get(5, TimeUnit.SECONDS);
        StreamConfig config = new StreamConfig(3, true, StreamConfig.Fsync.ON_COMMIT, 0, null, Consistency.QUORUM, 3);
        StreamRecord created = all.get(1).createStream(ORDERS, config).get(5, TimeUnit.SECONDS);
        assertThat(created.uid()).isNotZero();
        // committed and applied on the writer when the future completes
        assertThat(all.get(1).stream(ORDERS)).contains(created);

        await().atMost(WAIT).untilAsserted(() -> {
            for (RaftMetadata m : all) {
                assertThat(m.stream(ORDERS)).contains(created);
                assertThat(m.namespaceExists("t1", "ns")).isTrue();
                assertThat(m.placements()).hasSize(3);
            }
        });
        List<ShardPlacement> placements = n1.placements();
        for (RaftMetadata m : all) {
            assertThat(m.placements()).isEqualTo(placements);
        }
        for (ShardPlacement p : placements) {
            assertThat(p.key().uid()).isEqualTo(created.uid());
            assertThat(p.replicas()).containsExactlyInAnyOrder("n1", "n2", "n3");
            assertThat(p.epoch()).isEqualTo(1);
            assertThat(p.status()).isEqualTo(ShardStatus.ONLINE);
            assertThat(p.consistency()).isEqualTo(Consistency.QUORUM);
        }
        // leaders spread: each node leads one of the three shards
        assertThat(placements.stream().map(ShardPlacement::leader).collect(Collectors.toSet()))
                .containsExactlyInAnyOrder("n1", "n2", "n3");

        // the same create again is a no-op with the same uid; another definition is refused
        assertThat(all.get(2).createStream(ORDERS, config).get(5, TimeUnit.SECONDS)).isEqualTo(created);
        assertThat(all.get(2).createStream(ORDERS, StreamConfig.ephemeral()))
                .failsWithin(5, TimeUnit.SECONDS).withThrowableThat()
                .havingRootCause().withMessageContaining("already_exists");

        CacheRecord cache = n1.createCache(new CacheName("t1", "ns", "config"),
                CacheConfig.log(StreamConfig.Fsync.PERIODIC)).get(5, TimeUnit.SECONDS);
        await().atMost(WAIT).untilAsserted(() -> {
            for (RaftMetadata m : all) {
                assertThat(m.placement(ShardKey.cache(cache.uid()))).hasValueSatisfying(p -> {
                    assertThat(p.durable()).isTrue();
                    assertThat(p.replicas()).hasSize(3);
                    assertThat(p.consistency()).isEqualTo(Consistency.LEADER);
                });
            }
        });
        // metrics: exactly one node leads; the leader counts heartbeats; applied indexes are reported
        RaftMetadata leader = awaitRaftLeader();
        for (RaftMetadata m : all) {
            var registry = nodes.registries.get(m.localNodeId());
            assertThat(registry.get("felix.raft.leader").gauge().value()).isEqualTo(m == leader ? 1.0 : 0.0);
            assertThat(registry.get("felix.raft.term").gauge().value()).isPositive();
            assertThat(registry.get("felix.raft.applied.index").gauge().value()).isPositive();
            assertThat(registry.get("felix.raft.commit.index").gauge().value()).isPositive();
        }
        await().atMost(WAIT).until(() -> nodes.registries.get(leader.localNodeId())
                .get("felix.raft.heartbeats.received").functionCounter().count() > 3);
        // the listener saw the changes, in commit order
        await().atMost(WAIT).until(() -> !versions.isEmpty() && versions.get(versions.size() - 1) == n1.version());
        assertThat(versions).isSorted();
    }

    @Test
    void aNodeThatHasNotAppliedACreateYet_catchesUpWithTheLeaderBeforeAnsweringThatTheStreamIsUnknown()
            throws Exception {
        List<RaftMetadata> all = nodes.cluster(3);
        RaftMetadata raftLeader = awaitRaftLeader();
        RaftMetadata lagging = all.stream().filter(m -> m != raftLeader).findFirst().orElseThrow();
        RaftMetadata writer = all.stream().filter(m -> m != lagging).findFirst().orElseThrow();
        writer.createTenant("t1").get(5, TimeUnit.SECONDS);
        await().atMost(WAIT).until(() -> lagging.tenantExists("t1"));
        var registry = nodes.registries.get(lagging.localNodeId());
        var caughtUp = registry.get("felix.raft.catch.ups").tag("outcome", "caught_up").counter();
        assertThat(caughtUp.count()).isZero();
        assertThat(writer.readsMayLag()).isTrue();

        StreamRecord created;
        CompletableFuture<Void> caught;
        try (AutoCloseable held = lagging.holdApplying()) {
            created = writer.createStream(ORDERS, StreamConfig.ephemeral()).get(5, TimeUnit.SECONDS);
            // committed by a majority, applied on the writer, not on the lagging node: its reads do not know it
            assertThat(lagging.stream(ORDERS)).isEmpty();
            caught = lagging.catchUp();
            // Its barrier was committed at an index past the create, which this node cannot apply while held.
            // (200 ms, well inside the nodes' 1 s failure timeout, which bounds the round.)
            assertThatThrownBy(() -> caught.get(200, TimeUnit.MILLISECONDS))
                    .isInstanceOf(java.util.concurrent.TimeoutException.class);
        }
        caught.get(10, TimeUnit.SECONDS);
        assertThat(lagging.stream(ORDERS)).as("known once caught up").contains(created);
        assertThat(caughtUp.count()).isEqualTo(1.0);
        assertThat(registry.get("felix.raft.catch.ups").tag("outcome", "gave_up").counter().count()).isZero();
    }

    /**
     * A node whose heartbeats stop while its Raft server keeps answering the leader (its process runs) is given twice
     * the failure timeout before it is declared down ({@code FailoverDecider}, wired to Ratis' follower answers in
     * {@code RaftMetadata}): at least 1.5 failure timeouts after its last heartbeat here, where one failure timeout
     * (and a decider tick) is what a node that stops answering gets. Then it is declared down: a node that answers
     * Raft but never heartbeats is stuck.
     */
    @Test
    void aNodeThatStopsHeartbeatingWhileItsRaftServerAnswers_isDeclaredDownAfterTwiceTheFailureTimeout()
            throws Exception {
        List<RaftMetadata> all = nodes.cluster(3);
        RaftMetadata raftLeader = awaitRaftLeader();
        RaftMetadata stuck = all.stream().filter(m -> m != raftLeader).findFirst().orElseThrow();
        await().atMost(WAIT).until(() -> raftLeader.node(stuck.localNodeId())
                .map(n -> n.status() == NodeStatus.UP).orElse(false));

        long stopped = System.nanoTime();
        stuck.stopHeartbeating();
        await().atMost(WAIT).pollInterval(Duration.ofMillis(10)).until(() -> raftLeader.node(stuck.localNodeId())
                .map(n -> n.status() == NodeStatus.DOWN).orElse(false));
        long tookMs = (System.nanoTime() - stopped) / 1_000_000;
        System.out.printf("%s declared down %d ms after its heartbeats stopped (failure timeout %d ms)%n",
                stuck.localNodeId(), tookMs, TestNodes.FAILURE_MS);
        assertThat(tookMs).as("ms from the last heartbeat to down, for a node whose Raft server answers")
                .isGreaterThanOrEqualTo(3 * TestNodes.FAILURE_MS / 2);
        // Counted by whichever node led when it was spared (the Raft leader, unless leadership moved meanwhile).
        double deferrals = nodes.registries.values().stream()
                .mapToDouble(r -> r.get("felix.raft.node.down.deferrals").counter().count()).sum();
        assertThat(deferrals).as("felix_raft_node_down_deferrals_total, all nodes").isGreaterThanOrEqualTo(1.0);
    }

    @Test
    void lostNode_goesDown_quorumShardsPromotedOnFencedMajority_leaderShardsWaitForTheirLeader() throws Exception {
        List<RaftMetadata> all = nodes.cluster(3);
        RaftMetadata n1 = all.get(0);
        n1.createTenant("t1").get(5, TimeUnit.SECONDS);
        StreamRecord quorum = n1.createStream(ORDERS,
                new StreamConfig(3, true, StreamConfig.Fsync.ON_COMMIT, 0, null, Consistency.QUORUM, 3))
                .get(5, TimeUnit.SECONDS);
        StreamRecord leader = n1.createStream(new StreamName("t1", "ns", "ledger"),
                new StreamConfig(3, true, StreamConfig.Fsync.ON_COMMIT, 0, null, Consistency.LEADER, 3))
                .get(5, TimeUnit.SECONDS);
        StreamRecord ephemeral = n1.createStream(new StreamName("t1", "ns", "ticks"), StreamConfig.ephemeral(3))
                .get(5, TimeUnit.SECONDS);

        // Lose a node that is not the Raft leader (the Raft-leader loss has its own test).
        RaftMetadata raftLeader = awaitRaftLeader();
        String lost = all.stream().map(RaftMetadata::localNodeId)
                .filter(id -> !id.equals(raftLeader.localNodeId())).findFirst().orElseThrow();
        ShardKey quorumKey = ledBy(n1, quorum.uid(), lost);
        ShardKey leaderKey = ledBy(n1, leader.uid(), lost);
        ShardKey ephemeralKey = ledBy(n1, ephemeral.uid(), lost);
        List<String> survivors = all.stream().map(RaftMetadata::localNodeId).filter(id -> !id.equals(lost)).toList();
        nodes.stop(lost);

        RaftMetadata observer = nodes.node(survivors.get(0));
        await().atMost(WAIT).until(() -> observer.node(lost).map(n -> n.status() == NodeStatus.DOWN).orElse(false));
        // quorum shard: no fenced reports yet -> unavailable, same leader and epoch
        await().atMost(WAIT).untilAsserted(() -> assertThat(observer.placement(quorumKey)).hasValueSatisfying(p -> {
            assertThat(p.status()).isEqualTo(ShardStatus.UNAVAILABLE);
            assertThat(p.reason()).isEqualTo(RaftMetadata.NO_MAJORITY);
            assertThat(p.leader()).isEqualTo(lost);
            assertThat(p.epoch()).isEqualTo(1);
        }));
        // ephemeral shard: moved to a survivor as a new incarnation (epoch 2), its only replica
        await().atMost(WAIT).untilAsserted(() -> assertThat(observer.placement(ephemeralKey)).hasValueSatisfying(p -> {
            assertThat(p.status()).isEqualTo(ShardStatus.ONLINE);
            assertThat(p.leader()).isIn(survivors);
            assertThat(p.replicas()).containsExactly(p.leader());
            assertThat(p.epoch()).isEqualTo(2);
        }));

        // survivors report fenced at epoch 1; the second one holds more of the log
        nodes.report(survivors.get(0), new dev.felix.cluster.ReplicaReport(quorumKey, 1, 40, 40, 1));
        nodes.report(survivors.get(1), new dev.felix.cluster.ReplicaReport(quorumKey, 1, 42, 42, 1));
        await().atMost(WAIT).untilAsserted(() -> assertThat(observer.placement(quorumKey)).hasValueSatisfying(p -> {
            assertThat(p.status()).isEqualTo(ShardStatus.ONLINE);
            assertThat(p.leader()).isEqualTo(survivors.get(1));
            assertThat(p.epoch()).isEqualTo(2);
            assertThat(p.reason()).isNull();
        }));

        // leader shard: unavailable with the exact words, and its epoch never moves while its leader is gone
        await().atMost(WAIT).untilAsserted(() -> assertThat(observer.placement(leaderKey)).hasValueSatisfying(p -> {
            assertThat(p.status()).isEqualTo(ShardStatus.UNAVAILABLE);
            assertThat(p.reason()).isEqualTo(
                    "the leader is gone and no replica holding this shard's log can take over");
        }));
        await().during(Duration.ofMillis(3 * TestNodes.FAILURE_MS)).atMost(Duration.ofMillis(5 * TestNodes.FAILURE_MS))
                .untilAsserted(() -> {
                    for (String id : survivors) {
                        ShardPlacement p = nodes.node(id).placement(leaderKey).orElseThrow();
                        assertThat(p.epoch()).isEqualTo(1);
                        assertThat(p.leader()).isEqualTo(lost);
                        assertThat(p.status()).isEqualTo(ShardStatus.UNAVAILABLE);
                    }
                });

        // the Raft leader counted what it decided (summed over the survivors, in case leadership moved)
        assertThat(decisions(survivors, "felix.raft.node.status.changes", "status", "down")).isEqualTo(1.0);
        assertThat(decisions(survivors, "felix.raft.failover.decisions", "outcome", "promoted")).isEqualTo(1.0);
        assertThat(decisions(survivors, "felix.raft.failover.decisions", "outcome", "moved")).isEqualTo(1.0);
        assertThat(decisions(survivors, "felix.raft.failover.decisions", "outcome", "unavailable")).isEqualTo(2.0);

        // the lost node returns with its disk: up again, and it resumes its leader-mode shard at a new epoch
        RaftMetadata back = nodes.restart(lost);
        assertThat(back.node(lost)).hasValueSatisfying(n -> assertThat(n.up()).isTrue());
        await().atMost(WAIT).until(() -> observer.node(lost).map(NodeInfo::up).orElse(false));
        ShardPlacement resumed = back.resumeLeadership(leaderKey, 1).get(5, TimeUnit.SECONDS);
        assertThat(resumed.leader()).isEqualTo(lost);
        assertThat(resumed.epoch()).isEqualTo(2);
        assertThat(resumed.status()).isEqualTo(ShardStatus.ONLINE);
        await().atMost(WAIT).untilAsserted(() -> assertThat(observer.placement(leaderKey)).contains(resumed));
        // a stale resume is refused (compare-and-set on the epoch)
        assertThat(back.resumeLeadership(leaderKey, 1)).failsWithin(5, TimeUnit.SECONDS).withThrowableThat()
                .havingRootCause().withMessageContaining("bad_request").withMessageContaining("epoch 2, not 1");
        // the promoted quorum shard stays with its new leader
        assertThat(back.placement(quorumKey).orElseThrow().leader()).isEqualTo(survivors.get(1));

        // a planned hand-off by the recorded leader to an up replica
        ShardPlacement handed = back.handOff(leaderKey, 2, survivors.get(0)).get(5, TimeUnit.SECONDS);
        assertThat(handed.leader()).isEqualTo(survivors.get(0));
        assertThat(handed.epoch()).isEqualTo(3);
        await().atMost(WAIT).untilAsserted(() -> assertThat(observer.placement(leaderKey)).contains(handed));
        // only the recorded leader may hand off
        assertThat(back.handOff(leaderKey, 3, survivors.get(1))).failsWithin(5, TimeUnit.SECONDS)
                .withThrowableThat().havingRootCause().withMessageContaining("is not the leader");
    }

    @Test
    void raftLeaderLost_newLeaderElected_writesWorkAgain_thenWithoutQuorumWritesFailUnavailableInTime()
            throws Exception {
        nodes.cluster(3);
        RaftMetadata oldLeader = awaitRaftLeader();
        String lost = oldLeader.localNodeId();
        nodes.stop(lost);

        RaftMetadata newLeader = await().atMost(WAIT).until(nodes::raftLeader, m -> m != null);
        assertThat(newLeader.localNodeId()).isNotEqualTo(lost);
        RaftMetadata follower = nodes.running.values().stream().filter(m -> m != newLeader).findFirst().orElseThrow();
        // a write from a follower reaches the new leader and commits
        await().atMost(WAIT).ignoreExceptions().until(() -> {
            follower.createTenant("after-failover").get(5, TimeUnit.SECONDS);
            return true;
        });
        await().atMost(WAIT).until(() -> newLeader.tenantExists("after-failover"));
        // the new leader granted grace, then declared the lost node down
        await().atMost(WAIT).until(() -> follower.node(lost).map(n -> n.status() == NodeStatus.DOWN).orElse(false));

        // lose one more: no quorum is left, a write fails with unavailable within the request timeout
        nodes.stop(newLeader.localNodeId());
        long start = System.nanoTime();
        assertThat(follower.createTenant("no-quorum")).failsWithin(WAIT).withThrowableThat()
                .havingRootCause()
                .isInstanceOf(dev.felix.core.FelixException.class)
                .withMessageStartingWith("unavailable: no metadata quorum")
                .withMessageContaining("(cluster_request_timeout_ms)");
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(tookMs).isBetween(TestNodes.REQUEST_MS - 100, TestNodes.REQUEST_MS + 3000);
        // reads still answer from the local state
        assertThat(follower.tenantExists("after-failover")).isTrue();
        assertThat(follower.tenantExists("no-quorum")).isFalse();
    }

    @Test
    void nodeRestartedAfterSnapshot_recoversFromSnapshotAndLog() throws Exception {
        List<RaftMetadata> all = nodes.cluster(3);
        RaftMetadata n1 = all.get(0);
        RaftMetadata n3 = all.get(2);
        n1.createTenant("t1").get(5, TimeUnit.SECONDS);
        StreamRecord before = n1.createStream(new StreamName("t1", "ns", "before"), StreamConfig.ephemeral())
                .get(5, TimeUnit.SECONDS);
        await().atMost(WAIT).until(() -> n3.stream(before.name()).isPresent());
        long snapshot = n3.takeSnapshot();
        assertThat(snapshot).isPositive();
        var n3Meters = nodes.registries.get("n3");
        assertThat(n3Meters.get("felix.raft.snapshots").functionCounter().count()).isEqualTo(1.0);
        assertThat(n3Meters.get("felix.raft.log.entries.appended").functionCounter().count()).isPositive();
        StreamRecord after = n1.createStream(new StreamName("t1", "ns", "after"), StreamConfig.ephemeral())
                .get(5, TimeUnit.SECONDS);
        await().atMost(WAIT).until(() -> n3.stream(after.name()).isPresent());
        nodes.stop("n3");
        StreamRecord whileDown = n1.createStream(new StreamName("t1", "ns", "while-down"),
                new StreamConfig(1, true, StreamConfig.Fsync.PERIODIC, 0, null, Consistency.LEADER, 2))
                .get(5, TimeUnit.SECONDS);

        RaftMetadata back = nodes.restart("n3");
        assertThat(back.loadedSnapshotIndex()).isGreaterThanOrEqualTo(snapshot);
        assertThat(back.stream(before.name())).contains(before);
        assertThat(back.stream(after.name())).contains(after);
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(back.stream(whileDown.name())).contains(whileDown);
            assertThat(back.placements()).isEqualTo(n1.placements());
            assertThat(back.nodes()).isEqualTo(n1.nodes());
        });
    }

    @Test
    void wholeClusterStoppedAndStartedConcurrently_recoversItsMetadata() throws Exception {
        List<RaftMetadata> all = nodes.cluster(3);
        all.get(0).createTenant("t1").get(5, TimeUnit.SECONDS);
        StreamRecord kept = all.get(1).createStream(ORDERS,
                new StreamConfig(2, true, StreamConfig.Fsync.ON_COMMIT, 0, null, Consistency.QUORUM, 3))
                .get(5, TimeUnit.SECONDS);
        await().atMost(WAIT).until(() -> all.stream().allMatch(m -> m.stream(ORDERS).isPresent()));
        List<ShardPlacement> before = all.get(0).placements();
        for (String id : List.of("n1", "n2", "n3")) {
            nodes.stop(id);
        }
        // every start needs a quorum, so they must run at the same time
        var pool = java.util.concurrent.Executors.newFixedThreadPool(3);
        try {
            List<java.util.concurrent.Future<RaftMetadata>> starts = new java.util.ArrayList<>();
            for (String id : List.of("n1", "n2", "n3")) {
                starts.add(pool.submit(() -> nodes.restart(id)));
            }
            for (var f : starts) {
                RaftMetadata m = f.get(30, TimeUnit.SECONDS);
                assertThat(m.stream(ORDERS)).contains(kept);
                // the same units on the same replicas (leaders may have been failed over while the nodes stopped
                // one after another)
                assertThat(m.placements()).extracting(ShardPlacement::key, ShardPlacement::replicas)
                        .isEqualTo(before.stream().map(p -> org.assertj.core.groups.Tuple.tuple(p.key(), p.replicas()))
                                .toList());
            }
        } finally {
            pool.shutdownNow();
        }
        await().atMost(WAIT).untilAsserted(() -> {
            for (RaftMetadata m : nodes.running.values()) {
                assertThat(m.nodes()).hasSize(3).allMatch(NodeInfo::up);
            }
        });
        nodes.node("n3").createTenant("t2").get(5, TimeUnit.SECONDS);
    }

    @Test
    void secondNodeWithAnIdThatIsAlreadyAMember_isRefused() throws Exception {
        List<RaftMetadata> all = nodes.cluster(2);
        RaftMetadata n1 = all.get(0);
        String n2Raft = all.get(1).raftAddress();
        ClusterSettings impostor = nodes.settings("n2").dataDir(dir.resolve("n2-other-data-dir"))
                .join(n1.raftAddress()).build();
        assertThatThrownBy(() -> nodes.start(impostor))
                .isInstanceOfSatisfying(dev.felix.core.FelixException.class,
                        e -> assertThat(e.code()).isEqualTo(dev.felix.core.ErrorCode.ALREADY_EXISTS))
                .hasMessageContaining("node id 'n2' is already a member")
                .hasMessageContaining("node_id");
        // the cluster still knows the real n2 only, at its own address
        assertThat(n1.node("n2")).hasValueSatisfying(n -> assertThat(n.raftAddress()).isEqualTo(n2Raft));
        assertThat(n1.raftStatus().members()).containsExactly("n1", "n2");
        n1.createTenant("still-writable").get(5, TimeUnit.SECONDS);
        assertThat(all.get(1).raftStatus().members()).containsExactly("n1", "n2");
    }

    private double decisions(List<String> ids, String meter, String tag, String value) {
        double sum = 0;
        for (String id : ids) {
            sum += nodes.registries.get(id).get(meter).tag(tag, value).counter().count();
        }
        return sum;
    }

    private RaftMetadata awaitRaftLeader() {
        return await().atMost(WAIT).until(nodes::raftLeader, m -> m != null);
    }

    private static ShardKey ledBy(ClusterView view, long uid, String node) {
        return view.placements().stream().filter(p -> p.key().uid() == uid && p.leader().equals(node))
                .map(ShardPlacement::key).findFirst().orElseThrow();
    }

    static Set<String> ids(List<NodeInfo> infos) {
        return infos.stream().map(NodeInfo::nodeId).collect(Collectors.toSet());
    }
}
