package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.cluster.NodeInfo;
import dev.felix.cluster.NodeStatus;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.cluster.ShardStatus;
import dev.felix.core.Consistency;
import dev.felix.core.ErrorCode;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.cache.CacheConfig;
import dev.felix.core.cache.CacheName;
import dev.felix.core.metadata.CacheRecord;
import dev.felix.core.metadata.StreamRecord;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** {@link ClusterState#apply}: every command, its refusals, placement; pure, no Raft. */
class ClusterStateTest {

    private static final StreamName S = new StreamName("t1", "ns", "s");
    private static final StreamConfig QUORUM3 =
            new StreamConfig(1, true, StreamConfig.Fsync.ON_COMMIT, 0, null, Consistency.QUORUM, 3);

    /** A log: each apply gets the next index. */
    private static final class Log {
        ClusterState state = ClusterState.EMPTY;
        long index;

        Outcome apply(Command c) {
            ClusterState.Applied a = state.apply(c, ++index);
            state = a.state();
            return a.outcome();
        }

        Object done(Command c) {
            Outcome o = apply(c);
            assertThat(o).isInstanceOf(Outcome.Done.class);
            return ((Outcome.Done) o).value();
        }

        Outcome.Refused refused(Command c, ErrorCode code, String... words) {
            ClusterState before = state;
            Outcome o = apply(c);
            assertThat(o).isInstanceOfSatisfying(Outcome.Refused.class, r -> {
                assertThat(r.error().code()).isEqualTo(code);
                for (String w : words) {
                    assertThat(r.error().message()).contains(w);
                }
            });
            assertThat(state).as("a refusal changes nothing").isSameAs(before);
            return (Outcome.Refused) o;
        }
    }

    private static Log cluster(String... nodes) {
        Log log = new Log();
        log.done(new Command.InitCluster("felix", 42));
        for (String n : nodes) {
            log.done(register(n, "instance-" + n, 1));
        }
        log.done(new Command.CreateTenant("t1"));
        return log;
    }

    private static Command.RegisterNode register(String node, String instance, long incarnation) {
        return new Command.RegisterNode(node, instance, "127.0.0.1:7" + node.length(), "127.0.0.1:5000",
                "127.0.0.1:6000", incarnation);
    }

    private static ShardPlacement placement(Log log, ShardKey key) {
        return log.state.placements().get(key);
    }

    @Test
    void initCluster_setsNameAndSeedOnce() {
        Log log = new Log();
        log.done(new Command.InitCluster("felix", 42));
        ClusterState first = log.state;
        assertThat(first.clusterName()).isEqualTo("felix");
        assertThat(first.seed()).isEqualTo(42);
        assertThat(first.version()).isEqualTo(1);
        log.done(new Command.InitCluster("other", 7));
        assertThat(log.state).isSameAs(first);
    }

    @Test
    void registerNode_joinsUp_reRegistersWithNewIncarnation_refusesAnotherInstanceOfTheSameId() {
        Log log = cluster("a");
        NodeInfo a = log.state.node("a").orElseThrow();
        assertThat(a.status()).isEqualTo(NodeStatus.UP);
        assertThat(a.incarnation()).isEqualTo(1);
        assertThat(a.clientAddress()).isEqualTo("127.0.0.1:5000");

        log.done(new Command.SetNodeStatus("a", NodeStatus.DOWN, 1));
        NodeInfo again = (NodeInfo) log.done(register("a", "instance-a", 2));
        assertThat(again.status()).isEqualTo(NodeStatus.UP);
        assertThat(again.incarnation()).isEqualTo(2);

        log.refused(register("a", "another-data-dir", 3), ErrorCode.ALREADY_EXISTS,
                "node id 'a' is already a member", "instance-a", "another-data-dir", "node_id");
        assertThat(log.state.node("a").orElseThrow().incarnation()).isEqualTo(2);
    }

    @Test
    void registeringTheSameNodeTwiceChangesNothing() {
        Log log = cluster("a");
        ClusterState before = log.state;
        log.done(register("a", "instance-a", 1));
        assertThat(log.state).isSameAs(before);
    }

    @Test
    void aBarrier_isDone_andChangesNothing() {
        Log log = cluster("a");
        ClusterState before = log.state;
        assertThat(log.done(new Command.Barrier())).isNull();
        assertThat(log.state).isSameAs(before);
    }

    @Test
    void aDecision_appliesOnlyFromAnEntryOfTheTermItWasDecidedIn() {
        Log log = cluster("a", "b");
        Command down = new Command.SetNodeStatus("b", NodeStatus.DOWN, 1);

        // Decided as leader in term 3, appended by the leader of term 4: its maker had been deposed.
        ClusterState before = log.state;
        ClusterState.Applied stale = before.apply(new Command.Decided(3, down), ++log.index, 4);
        assertThat(stale.state()).as("a refusal changes nothing").isSameAs(before);
        assertThat(stale.outcome()).isInstanceOfSatisfying(Outcome.Refused.class, r -> {
            assertThat(r.error().code()).isEqualTo(ErrorCode.NOT_LEADER);
            assertThat(r.error().message()).contains("term 3", "in term 4", "deposed");
        });
        // An entry whose term is not known (the two-argument apply) cannot show the decision is current.
        log.refused(new Command.Decided(3, down), ErrorCode.NOT_LEADER, "term 3");
        assertThat(log.state.node("b").orElseThrow().status()).isEqualTo(NodeStatus.UP);

        ClusterState.Applied current = log.state.apply(new Command.Decided(4, down), ++log.index, 4);
        assertThat(current.outcome()).isInstanceOf(Outcome.Done.class);
        assertThat(current.state().node("b").orElseThrow().status()).isEqualTo(NodeStatus.DOWN);
        assertThat(current.state().version()).isEqualTo(log.index);
        // The decision is then what it wraps: a compare-and-set on the incarnation, as ever.
        ClusterState.Applied wrongIncarnation = current.state()
                .apply(new Command.Decided(4, new Command.SetNodeStatus("b", NodeStatus.UP, 9)), ++log.index, 4);
        assertThat(wrongIncarnation.outcome()).isInstanceOfSatisfying(Outcome.Refused.class,
                r -> assertThat(r.error().code()).isEqualTo(ErrorCode.BAD_REQUEST));
    }

    @Test
    void aDecision_isAFailoverCommand_withATerm_fencedOnce() {
        Command down = new Command.SetNodeStatus("b", NodeStatus.DOWN, 1);
        assertThatThrownBy(() -> new Command.Decided(1, new Command.Barrier()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a failover decision");
        Command.Decided once = new Command.Decided(1, down);
        assertThatThrownBy(() -> new Command.Decided(1, once))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a failover decision");
        assertThatThrownBy(() -> new Command.Decided(-1, down))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not negative");
    }

    @Test
    void setNodeStatus_isACompareAndSetOnTheIncarnation() {
        Log log = cluster("a");
        log.refused(new Command.SetNodeStatus("a", NodeStatus.DOWN, 9), ErrorCode.BAD_REQUEST,
                "incarnation 1, not 9");
        log.refused(new Command.SetNodeStatus("zz", NodeStatus.DOWN, 1), ErrorCode.NOT_FOUND, "'zz'");
        NodeInfo down = (NodeInfo) log.done(new Command.SetNodeStatus("a", NodeStatus.DOWN, 1));
        assertThat(down.status()).isEqualTo(NodeStatus.DOWN);
        long version = log.state.version();
        log.done(new Command.SetNodeStatus("a", NodeStatus.DOWN, 1));
        assertThat(log.state.version()).as("no change, no new version").isEqualTo(version);
        log.done(new Command.SetNodeStatus("a", NodeStatus.UP, 1));
        assertThat(log.state.up("a")).isTrue();
    }

    @Test
    void tenants_areIdempotent_andNamesAreChecked() {
        Log log = cluster("a");
        long version = log.state.version();
        log.done(new Command.CreateTenant("t1"));
        assertThat(log.state.version()).isEqualTo(version);
        log.refused(new Command.CreateTenant("bad/name"), ErrorCode.BAD_REQUEST, "tenant name");
        assertThat(log.state.tenants()).containsExactly("t1");
    }

    @Test
    void createStream_followsTheLocalMetadataRules() {
        Log log = cluster("a", "b", "c");
        log.refused(new Command.CreateStream(new StreamName("nobody", "ns", "s"), QUORUM3), ErrorCode.NOT_FOUND,
                "tenant 'nobody' not found");

        StreamRecord created = (StreamRecord) log.done(new Command.CreateStream(S, QUORUM3));
        assertThat(created.uid()).isNotZero();
        assertThat(log.state.streams(S.tenant(), S.namespace())).containsExactly(created);
        assertThat(log.state.namespaces()).containsExactly("t1/ns");

        // same definition: the same record, nothing changes
        ClusterState before = log.state;
        assertThat(log.done(new Command.CreateStream(S, QUORUM3))).isEqualTo(created);
        assertThat(log.state).isSameAs(before);
        // another definition: already_exists, naming the existing one
        log.refused(new Command.CreateStream(S, StreamConfig.ephemeral()), ErrorCode.ALREADY_EXISTS,
                "exists with a different definition", "consistency=quorum");

        // delete, then create again: a fresh uid
        assertThat(log.done(new Command.DeleteStream(S))).isEqualTo(created);
        assertThat(log.state.streams()).isEmpty();
        assertThat(log.state.placements()).isEmpty();
        assertThat(log.state.namespaces()).as("namespaces stay registered").containsExactly("t1/ns");
        log.refused(new Command.DeleteStream(S), ErrorCode.NOT_FOUND, "'t1/ns/s' not found");
        StreamRecord again = (StreamRecord) log.done(new Command.CreateStream(S, QUORUM3));
        assertThat(again.uid()).isNotEqualTo(created.uid());
    }

    @Test
    void uidsAreDeterministicFromSeedAndIndex_andDifferAcrossClusters() {
        Log one = cluster("a");
        Log two = cluster("a");
        StreamRecord r1 = (StreamRecord) one.done(new Command.CreateStream(S, StreamConfig.ephemeral()));
        StreamRecord r2 = (StreamRecord) two.done(new Command.CreateStream(S, StreamConfig.ephemeral()));
        assertThat(r1.uid()).as("same log, same uid").isEqualTo(r2.uid());

        Log other = new Log();
        other.done(new Command.InitCluster("felix", 43));
        other.done(register("a", "instance-a", 1));
        other.done(new Command.CreateTenant("t1"));
        StreamRecord r3 = (StreamRecord) other.done(new Command.CreateStream(S, StreamConfig.ephemeral()));
        assertThat(r3.uid()).as("another seed, another uid").isNotEqualTo(r1.uid());
    }

    @Property(tries = 50)
    void uidsNeverRepeatNorAreZero(@ForAll long seed) {
        ClusterState s = new ClusterState("x", seed, 0, new java.util.TreeMap<>(), new java.util.TreeSet<>(),
                new java.util.TreeSet<>(), new java.util.TreeMap<>(), new java.util.TreeMap<>(),
                new java.util.TreeMap<>(ClusterState.KEY_ORDER));
        Set<Long> seen = new HashSet<>();
        for (long i = 1; i <= 2000; i++) {
            long uid = s.uid(i);
            assertThat(uid).isNotZero();
            assertThat(seen.add(uid)).isTrue();
        }
    }

    @Test
    void durableShards_getReplicasOnUpNodes_withLeadersSpread() {
        Log log = cluster("a", "b", "c", "d");
        StreamConfig config = new StreamConfig(4, true, StreamConfig.Fsync.PERIODIC, 0, null, Consistency.LEADER, 3);
        StreamRecord r = (StreamRecord) log.done(new Command.CreateStream(S, config));
        Map<String, Integer> leaderships = new HashMap<>();
        for (int shard = 0; shard < 4; shard++) {
            ShardPlacement p = placement(log, ShardKey.stream(r.uid(), shard));
            assertThat(p.name()).isEqualTo("t1/ns/s");
            assertThat(p.durable()).isTrue();
            assertThat(p.consistency()).isEqualTo(Consistency.LEADER);
            assertThat(p.replicas()).hasSize(3).doesNotHaveDuplicates().contains(p.leader());
            assertThat(p.replicas().get(0)).isEqualTo(p.leader());
            assertThat(p.epoch()).isEqualTo(1);
            assertThat(p.status()).isEqualTo(ShardStatus.ONLINE);
            assertThat(p.reason()).isNull();
            leaderships.merge(p.leader(), 1, Integer::sum);
        }
        // four shards over four nodes: fewest leaderships first, ties by id -> one each
        assertThat(leaderships).containsOnlyKeys("a", "b", "c", "d").allSatisfy((n, c) -> assertThat(c).isEqualTo(1));
        // first shard: leader a (all tied), followers the least-hosting nodes by id
        assertThat(placement(log, ShardKey.stream(r.uid(), 0)).replicas()).containsExactly("a", "b", "c");
    }

    @Test
    void placementSpreadsAcrossStreams_andSkipsDownNodes() {
        Log log = cluster("a", "b", "c");
        StreamConfig one = new StreamConfig(1, true, StreamConfig.Fsync.PERIODIC, 0, null, Consistency.LEADER, 1);
        List<String> leaders = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            StreamRecord r = (StreamRecord) log.done(
                    new Command.CreateStream(new StreamName("t1", "ns", "s" + i), one));
            leaders.add(placement(log, ShardKey.stream(r.uid(), 0)).leader());
        }
        assertThat(leaders).containsExactly("a", "b", "c");

        log.done(new Command.SetNodeStatus("a", NodeStatus.DOWN, 1));
        StreamRecord r = (StreamRecord) log.done(new Command.CreateStream(new StreamName("t1", "ns", "late"), QUORUM3
                .withReplication(Consistency.QUORUM, 0)));
        ShardPlacement p = placement(log, ShardKey.stream(r.uid(), 0));
        assertThat(p.replicas()).as("default min(3, up nodes) = 2, down node skipped")
                .containsExactlyInAnyOrder("b", "c");
    }

    @Test
    void moreReplicasThanUpNodes_isABadRequestNamingBothNumbers() {
        Log log = cluster("a", "b", "c");
        log.done(new Command.SetNodeStatus("c", NodeStatus.DOWN, 1));
        log.refused(new Command.CreateStream(S, QUORUM3), ErrorCode.BAD_REQUEST, "replicas 3", "2 nodes that are up");
        assertThat(log.state.streams()).isEmpty();
    }

    @Test
    void defaultReplicasIsMinOfThreeAndUpNodes() {
        Log log = cluster("a", "b", "c", "d", "e");
        StreamRecord r = (StreamRecord) log.done(
                new Command.CreateStream(S, QUORUM3.withReplication(Consistency.QUORUM, 0)));
        assertThat(placement(log, ShardKey.stream(r.uid(), 0)).replicas()).hasSize(3);
        Log small = cluster("a");
        StreamRecord s = (StreamRecord) small.done(
                new Command.CreateStream(S, QUORUM3.withReplication(Consistency.QUORUM, 0)));
        assertThat(placement(small, ShardKey.stream(s.uid(), 0)).replicas()).containsExactly("a");
    }

    @Test
    void ephemeralShardsAndMemoryCaches_liveOnOneNode_logCachesAreReplicatedLikeLeaderShards() {
        Log log = cluster("a", "b", "c");
        StreamRecord eph = (StreamRecord) log.done(new Command.CreateStream(S, StreamConfig.ephemeral(3)));
        for (int shard = 0; shard < 3; shard++) {
            ShardPlacement p = placement(log, ShardKey.stream(eph.uid(), shard));
            assertThat(p.durable()).isFalse();
            assertThat(p.replicas()).containsExactly(p.leader());
            assertThat(p.consistency()).isEqualTo(Consistency.LEADER);
        }
        CacheRecord mem = (CacheRecord) log.done(new Command.CreateCache(new CacheName("t1", "ns", "m"),
                CacheConfig.memory()));
        ShardPlacement m = placement(log, ShardKey.cache(mem.uid()));
        assertThat(m.durable()).isFalse();
        assertThat(m.replicas()).containsExactly(m.leader());
        assertThat(m.key().kind()).isEqualTo(ShardKey.Kind.CACHE);

        CacheRecord logged = (CacheRecord) log.done(new Command.CreateCache(new CacheName("t1", "ns", "l"),
                CacheConfig.log(StreamConfig.Fsync.ON_COMMIT)));
        ShardPlacement l = placement(log, ShardKey.cache(logged.uid()));
        assertThat(l.durable()).isTrue();
        assertThat(l.consistency()).isEqualTo(Consistency.LEADER);
        assertThat(l.replicas()).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(l.key().shard()).isZero();

        // caches follow the same create/delete rules
        assertThat(log.done(new Command.CreateCache(new CacheName("t1", "ns", "m"), CacheConfig.memory())))
                .isEqualTo(mem);
        log.refused(new Command.CreateCache(new CacheName("t1", "ns", "m"), CacheConfig.log(StreamConfig.Fsync.NONE)),
                ErrorCode.ALREADY_EXISTS, "different definition (memory)");
        log.refused(new Command.CreateCache(new CacheName("t9", "ns", "m"), CacheConfig.memory()), ErrorCode.NOT_FOUND,
                "tenant 't9' not found");
        assertThat(log.done(new Command.DeleteCache(new CacheName("t1", "ns", "m")))).isEqualTo(mem);
        assertThat(log.state.placements()).doesNotContainKey(ShardKey.cache(mem.uid()));
        log.refused(new Command.DeleteCache(new CacheName("t1", "ns", "m")), ErrorCode.NOT_FOUND, "not found");
        assertThat(log.state.caches("t1", null)).containsExactly(logged);
    }

    @Test
    void noUpNode_isUnavailable() {
        Log log = cluster("a");
        log.done(new Command.SetNodeStatus("a", NodeStatus.DOWN, 1));
        log.refused(new Command.CreateStream(S, StreamConfig.ephemeral()), ErrorCode.UNAVAILABLE, "no node is up");
    }

    @Test
    void setLeader_bumpsTheEpoch_onlyFromTheExpectedEpoch_toAnUpReplica() {
        Log log = cluster("a", "b", "c");
        StreamRecord r = (StreamRecord) log.done(new Command.CreateStream(S, QUORUM3));
        ShardKey key = ShardKey.stream(r.uid(), 0);
        log.refused(new Command.SetLeader(key, "b", 7, null), ErrorCode.BAD_REQUEST, "at epoch 1, not 7");
        log.refused(new Command.SetLeader(ShardKey.stream(12345, 0), "b", 1, null), ErrorCode.NOT_FOUND,
                "does not exist");
        log.refused(new Command.SetLeader(key, "zz", 1, null), ErrorCode.BAD_REQUEST, "'zz' is not a replica");
        log.refused(new Command.SetLeader(key, "b", 1, List.of("b")), ErrorCode.BAD_REQUEST,
                "replica set is fixed");
        log.done(new Command.SetNodeStatus("c", NodeStatus.DOWN, 1));
        log.refused(new Command.SetLeader(key, "c", 1, null), ErrorCode.BAD_REQUEST, "'c' is not up");

        log.done(new Command.SetUnavailable(key, 1, FailoverDecider.NO_MAJORITY));
        ShardPlacement p = (ShardPlacement) log.done(new Command.SetLeader(key, "b", 1, null));
        assertThat(p.leader()).isEqualTo("b");
        assertThat(p.epoch()).isEqualTo(2);
        assertThat(p.status()).isEqualTo(ShardStatus.ONLINE);
        assertThat(p.reason()).isNull();
        assertThat(p.replicas()).containsExactlyInAnyOrder("a", "b", "c");
        // the same decision again is stale now
        log.refused(new Command.SetLeader(key, "b", 1, null), ErrorCode.BAD_REQUEST, "at epoch 2, not 1");
    }

    @Test
    void setLeader_movesAUnitWithoutALogWhole() {
        Log log = cluster("a", "b");
        StreamRecord r = (StreamRecord) log.done(new Command.CreateStream(S, StreamConfig.ephemeral()));
        ShardKey key = ShardKey.stream(r.uid(), 0);
        String from = placement(log, key).leader();
        String to = from.equals("a") ? "b" : "a";
        ShardPlacement moved = (ShardPlacement) log.done(new Command.SetLeader(key, to, 1, List.of(to)));
        assertThat(moved.replicas()).containsExactly(to);
        assertThat(moved.leader()).isEqualTo(to);
        assertThat(moved.epoch()).isEqualTo(2);
    }

    @Test
    void setUnavailable_keepsLeaderAndEpoch_andIsACompareAndSet() {
        Log log = cluster("a", "b", "c");
        StreamRecord r = (StreamRecord) log.done(
                new Command.CreateStream(S, QUORUM3.withReplication(Consistency.LEADER, 3)));
        ShardKey key = ShardKey.stream(r.uid(), 0);
        String leader = placement(log, key).leader();
        ShardPlacement p = (ShardPlacement) log.done(new Command.SetUnavailable(key, 1, FailoverDecider.LEADER_GONE));
        assertThat(p.status()).isEqualTo(ShardStatus.UNAVAILABLE);
        assertThat(p.reason()).isEqualTo("the leader is gone and no replica holding this shard's log can take over");
        assertThat(p.leader()).isEqualTo(leader);
        assertThat(p.epoch()).isEqualTo(1);
        long version = log.state.version();
        log.done(new Command.SetUnavailable(key, 1, FailoverDecider.LEADER_GONE));
        assertThat(log.state.version()).as("the same status again changes nothing").isEqualTo(version);
        log.refused(new Command.SetUnavailable(key, 0, "x"), ErrorCode.BAD_REQUEST, "at epoch 1, not 0");
    }

    @Test
    void handOff_fromTheRecordedLeaderToAnUpReplica() {
        Log log = cluster("a", "b", "c");
        StreamRecord r = (StreamRecord) log.done(
                new Command.CreateStream(S, QUORUM3.withReplication(Consistency.LEADER, 2)));
        ShardKey key = ShardKey.stream(r.uid(), 0);
        ShardPlacement p0 = placement(log, key);
        String leader = p0.leader();
        String follower = p0.followers().get(0);
        String outsider = List.of("a", "b", "c").stream().filter(n -> !p0.replicas().contains(n)).findFirst()
                .orElseThrow();
        log.refused(new Command.HandOff(key, 1, follower, leader), ErrorCode.BAD_REQUEST,
                "'" + follower + "' is not the leader");
        log.refused(new Command.HandOff(key, 1, leader, outsider), ErrorCode.BAD_REQUEST, "is not a replica");
        log.refused(new Command.HandOff(key, 1, leader, leader), ErrorCode.BAD_REQUEST, "leads");
        log.refused(new Command.HandOff(key, 2, leader, follower), ErrorCode.BAD_REQUEST, "at epoch 1, not 2");
        log.done(new Command.SetNodeStatus(follower, NodeStatus.DOWN, 1));
        log.refused(new Command.HandOff(key, 1, leader, follower), ErrorCode.BAD_REQUEST, "is not up");
        log.done(new Command.SetNodeStatus(follower, NodeStatus.UP, 1));

        ShardPlacement p = (ShardPlacement) log.done(new Command.HandOff(key, 1, leader, follower));
        assertThat(p.leader()).isEqualTo(follower);
        assertThat(p.epoch()).isEqualTo(2);
        assertThat(p.status()).isEqualTo(ShardStatus.ONLINE);
    }

    @Test
    void resumeLeadership_onlyByTheRecordedLeader_whenUp_atTheExpectedEpoch() {
        Log log = cluster("a", "b", "c");
        StreamRecord r = (StreamRecord) log.done(
                new Command.CreateStream(S, QUORUM3.withReplication(Consistency.LEADER, 3)));
        ShardKey key = ShardKey.stream(r.uid(), 0);
        String leader = placement(log, key).leader();
        String other = placement(log, key).followers().get(0);
        log.done(new Command.SetNodeStatus(leader, NodeStatus.DOWN, 1));
        log.done(new Command.SetUnavailable(key, 1, FailoverDecider.LEADER_GONE));
        log.refused(new Command.ResumeLeadership(key, 1, leader), ErrorCode.BAD_REQUEST, "is not up");
        log.done(register(leader, "instance-" + leader, 2));
        log.refused(new Command.ResumeLeadership(key, 1, other), ErrorCode.BAD_REQUEST, "not the recorded leader");
        log.refused(new Command.ResumeLeadership(key, 0, leader), ErrorCode.BAD_REQUEST, "at epoch 1, not 0");

        ShardPlacement p = (ShardPlacement) log.done(new Command.ResumeLeadership(key, 1, leader));
        assertThat(p.leader()).isEqualTo(leader);
        assertThat(p.epoch()).isEqualTo(2);
        assertThat(p.status()).isEqualTo(ShardStatus.ONLINE);
        assertThat(p.reason()).isNull();
    }

    @Property(tries = 30)
    void everyShardGetsDistinctUpReplicas(@ForAll @IntRange(min = 1, max = 7) int nodeCount,
                                          @ForAll @IntRange(min = 1, max = 16) int shards,
                                          @ForAll @IntRange(min = 0, max = 7) int replicas) {
        String[] ids = new String[nodeCount];
        for (int i = 0; i < nodeCount; i++) {
            ids[i] = "n" + i;
        }
        Log log = cluster(ids);
        StreamConfig config = new StreamConfig(shards, true, StreamConfig.Fsync.PERIODIC, 0, null, Consistency.QUORUM,
                replicas);
        Outcome o = log.apply(new Command.CreateStream(S, config));
        int expected = replicas == 0 ? Math.min(3, nodeCount) : replicas;
        if (expected > nodeCount) {
            assertThat(o).isInstanceOf(Outcome.Refused.class);
            return;
        }
        StreamRecord r = (StreamRecord) ((Outcome.Done) o).value();
        int maxLeaderships = 0;
        Map<String, Integer> leaderships = new HashMap<>();
        for (int shard = 0; shard < shards; shard++) {
            ShardPlacement p = placement(log, ShardKey.stream(r.uid(), shard));
            assertThat(p.replicas()).hasSize(expected).doesNotHaveDuplicates().contains(p.leader());
            maxLeaderships = Math.max(maxLeaderships, leaderships.merge(p.leader(), 1, Integer::sum));
        }
        // spread: no node leads more than its fair share, rounded up
        assertThat(maxLeaderships).isLessThanOrEqualTo((shards + nodeCount - 1) / nodeCount);
    }
}
