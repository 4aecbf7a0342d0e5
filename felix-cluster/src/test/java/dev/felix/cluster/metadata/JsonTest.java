package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.cluster.NodeInfo;
import dev.felix.cluster.NodeStatus;
import dev.felix.cluster.ReplicaReport;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.cluster.ShardStatus;
import dev.felix.core.Consistency;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.QueueLimits;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.cache.CacheConfig;
import dev.felix.core.cache.CacheName;
import dev.felix.core.metadata.CacheRecord;
import dev.felix.core.metadata.StreamRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** The JSON forms of log entries, replies, heartbeats and snapshots: lossless and strict. */
class JsonTest {

    private static final ShardKey KEY = ShardKey.stream(0x8000_0000_0000_0001L, 3);
    private static final StreamConfig FULL = new StreamConfig(4, true, StreamConfig.Fsync.ON_COMMIT, 1 << 20,
            Duration.ofHours(7), Consistency.QUORUM, 5);
    private static final CacheConfig CACHE = CacheConfig.log(StreamConfig.Fsync.ON_COMMIT)
            .withDefaultTtl(Duration.ofSeconds(30)).withMaxEntries(77).withChangeRing(12, 3456)
            .withWatcherQueue(new QueueLimits(9, 999)).withWriterQueue(new QueueLimits(8, 888))
            .withMaxValueBytes(1234).withSnapshotEveryChanges(55).withSegmentBytes(8192);

    static Stream<Command> commands() {
        return Stream.of(
                new Command.InitCluster("felix", -5),
                new Command.RegisterNode("n1", "inst", "127.0.0.1:1", "127.0.0.1:2", "[::1]:3", Long.MAX_VALUE),
                new Command.SetNodeStatus("n1", NodeStatus.DOWN, 9),
                new Command.CreateTenant("t"),
                new Command.CreateStream(new StreamName("t", "n.s", "s-1"), FULL),
                new Command.CreateStream(new StreamName("t", "ns", "e"), StreamConfig.ephemeral(2)),
                new Command.CreateStream(new StreamName("t", "ns", "presence"),
                        StreamConfig.builder().noReplay(true).build()),
                new Command.DeleteStream(new StreamName("t", "ns", "s")),
                new Command.CreateCache(new CacheName("t", "ns", "c"), CACHE),
                new Command.CreateCache(new CacheName("t", "ns", "m"), CacheConfig.memory()),
                new Command.DeleteCache(new CacheName("t", "ns", "c")),
                new Command.SetLeader(KEY, "n2", 4, null),
                new Command.SetLeader(ShardKey.cache(7), "n2", 4, List.of("n2")),
                new Command.SetUnavailable(KEY, 4, FailoverDecider.LEADER_GONE),
                new Command.HandOff(KEY, 4, "n1", "n2"),
                new Command.ResumeLeadership(KEY, 4, "n1"),
                new Command.Barrier(),
                new Command.Decided(7, new Command.SetNodeStatus("n1", NodeStatus.UP, 9)),
                new Command.Decided(0, new Command.SetLeader(KEY, "n2", 4, List.of("n2"))),
                new Command.Decided(Long.MAX_VALUE, new Command.SetUnavailable(KEY, 4, FailoverDecider.NO_MAJORITY)));
    }

    @Test
    void aDecision_isItsCommandsObjectWithTheTerm_soAnEntryWithoutTheTermIsThePlainCommand() {
        Command plain = new Command.SetNodeStatus("n1", NodeStatus.DOWN, 9);
        String decided = new String(Json.encode(new Command.Decided(12, plain)), StandardCharsets.UTF_8);
        String undecided = new String(Json.encode(plain), StandardCharsets.UTF_8);

        assertThat(decided).contains("\"decided_in_term\":12").contains("\"type\":\"set_node_status\"");
        assertThat(decided.replace(",\"decided_in_term\":12", "")).isEqualTo(undecided);
        // Entries written before decisions carried their term (and by the decider of an older node) stay plain.
        assertThat(Json.decodeCommand(undecided.getBytes(StandardCharsets.UTF_8))).isEqualTo(plain);
        assertThatThrownBy(() -> Json.decodeCommand(
                undecided.replace("}", ",\"decided_in_term\":\"x\"}").getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("'decided_in_term' must be an integer");
    }

    @ParameterizedTest
    @MethodSource("commands")
    void everyCommandRoundTrips(Command c) {
        assertThat(Json.decodeCommand(Json.encode(c))).isEqualTo(c);
    }

    @Test
    void outcomesRoundTrip() {
        NodeInfo node = new NodeInfo("n1", "a:1", "a:2", "a:3", NodeStatus.UP, 3);
        StreamRecord stream = new StreamRecord(new StreamName("t", "ns", "s"), FULL, 42);
        CacheRecord cache = new CacheRecord(new CacheName("t", "ns", "c"), CACHE, -42);
        ShardPlacement placement = new ShardPlacement(KEY, "t/ns/s", true, Consistency.QUORUM,
                List.of("n1", "n2", "n3"), "n2", 5, ShardStatus.UNAVAILABLE, FailoverDecider.NO_MAJORITY);
        for (Object v : new Object[] {null, node, stream, cache, placement}) {
            assertThat(Json.decodeOutcome(Json.encode(Outcome.done(v)))).isEqualTo(Outcome.done(v));
        }
        Outcome refused = new Outcome.Refused(FelixError.of(ErrorCode.ALREADY_EXISTS, "it exists"));
        assertThat(Json.decodeOutcome(Json.encode(refused))).isEqualTo(refused);
    }

    @Test
    void heartbeatsRoundTrip() {
        Heartbeat h = new Heartbeat("n1", 99, 12, List.of(new ReplicaReport(KEY, 3, 100, 90, -1),
                new ReplicaReport(ShardKey.cache(5), -1, 0, 0, 2)));
        assertThat(Json.decodeHeartbeat(Json.encode(h))).isEqualTo(h);
        Json.HeartbeatReply r = new Json.HeartbeatReply("n2", 77);
        assertThat(Json.decodeHeartbeatReply(Json.encode(r))).isEqualTo(r);
    }

    @Test
    void aHeartbeatWithoutASequence_fromANodeOfAnEarlierVersion_isUnnumbered() {
        Heartbeat h = Json.decodeHeartbeat(bytes("{\"type\":\"heartbeat\",\"node_id\":\"n1\",\"incarnation\":7,"
                + "\"reports\":[]}"));
        assertThat(h).isEqualTo(new Heartbeat("n1", 7, Heartbeat.UNNUMBERED, List.of()));
        assertThatThrownBy(() -> Json.decodeHeartbeat(bytes("{\"type\":\"heartbeat\",\"node_id\":\"n1\","
                + "\"incarnation\":7,\"sequence\":-3,\"reports\":[]}")))
                .hasMessage("negative heartbeat sequence -3");
    }

    @Test
    void aQueryOfAnUnknownType_isRefusedByName() {
        Heartbeat h = new Heartbeat("n1", 5, 1, List.of());
        assertThat(Json.decodeQuery(Json.encode(h))).isEqualTo(h);
        // what a node of an earlier version asked before a catch-up round (it now commits a barrier instead)
        assertThatThrownBy(() -> Json.decodeHeartbeat(bytes("{\"type\":\"commit_index\"}")))
                .hasMessage("unknown query type 'commit_index'");
        assertThatThrownBy(() -> Json.decodeQuery(bytes("{\"type\":\"gossip\"}")))
                .hasMessage("unknown query type 'gossip'");
    }

    @Test
    void aWholeStateRoundTrips() {
        ClusterState s = ClusterState.EMPTY;
        long i = 0;
        for (Command c : List.of(new Command.InitCluster("felix", 123),
                new Command.RegisterNode("n1", "i1", "h:1", "h:2", "h:3", 1),
                new Command.RegisterNode("n2", "i2", "h:4", "h:5", "h:6", 1),
                new Command.CreateTenant("t"),
                new Command.CreateStream(new StreamName("t", "ns", "s"), FULL.withReplication(Consistency.QUORUM, 2)),
                new Command.CreateCache(new CacheName("t", "ns2", "c"), CACHE),
                new Command.SetNodeStatus("n2", NodeStatus.DOWN, 1))) {
            s = s.apply(c, ++i).state();
        }
        assertThat(s.streams()).hasSize(1);
        Json.StateDocument doc = Json.decodeState(Json.encodeState(s, 4, 17));
        assertThat(doc.term()).isEqualTo(4);
        assertThat(doc.index()).isEqualTo(17);
        assertThat(doc.state()).isEqualTo(s);
        // and it keeps applying the same way
        Command next = new Command.CreateStream(new StreamName("t", "ns", "s2"), StreamConfig.ephemeral());
        assertThat(doc.state().apply(next, 20)).isEqualTo(s.apply(next, 20));
    }

    @Test
    void decodingIsStrictAndNamesWhatIsWrong() {
        assertThatThrownBy(() -> Json.decodeCommand(bytes("{\"type\":\"set_leader\",\"new_leader\":\"n\"}")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("missing 'key'");
        assertThatThrownBy(() -> Json.decodeCommand(bytes("{\"type\":\"drop_everything\"}")))
                .hasMessage("unknown command type 'drop_everything'");
        assertThatThrownBy(() -> Json.decodeCommand(bytes("{\"type\":\"create_tenant\",\"tenant\":5}")))
                .hasMessage("'tenant' must be a string");
        assertThatThrownBy(() -> Json.decodeCommand(bytes("[1,2]"))).hasMessage("expected a JSON object");
        assertThatThrownBy(() -> Json.decodeCommand(bytes("{not json")))
                .hasMessageStartingWith("invalid JSON");
        assertThatThrownBy(() -> Json.decodeCommand(bytes(
                "{\"type\":\"set_node_status\",\"node_id\":\"n\",\"status\":\"asleep\",\"expected_incarnation\":1}")))
                .hasMessage("unknown NodeStatus 'asleep'");
        assertThatThrownBy(() -> Json.decodeCommand(bytes(
                "{\"type\":\"set_node_status\",\"node_id\":\"n\",\"status\":\"up\",\"expected_incarnation\":1.5}")))
                .hasMessage("'expected_incarnation' must be an integer");
        assertThatThrownBy(() -> Json.decodeState(bytes("{\"format\":2}")))
                .hasMessageContaining("snapshot format 2 is not 1");
        // values are checked by the records they build
        assertThatThrownBy(() -> Json.decodeCommand(bytes("{\"type\":\"delete_stream\",\"name\":\"t/../s\"}")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("namespace name must not be '..'");
    }

    @Test
    void tooLargeDocumentsAreRefusedBeforeParsing() {
        byte[] big = new byte[Json.MAX_DOCUMENT_BYTES + 1];
        assertThatThrownBy(() -> Json.decodeHeartbeat(big)).hasMessageContaining("larger than");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
