package dev.felix.cluster.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.cluster.NodeStatus;
import dev.felix.cluster.ReplicaReport;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.cluster.ShardStatus;
import dev.felix.core.Consistency;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.cache.Cache;
import dev.felix.core.cache.CacheConfig;
import dev.felix.core.cache.CacheName;
import dev.felix.core.cache.CacheWatch;
import dev.felix.core.cache.WatchEnded;
import dev.felix.core.cache.WatchItem;
import dev.felix.core.metadata.LocalMetadata;
import dev.felix.core.metadata.Metadata;
import dev.felix.storage.LogConfig;
import dev.felix.storage.SegmentedLog;
import dev.felix.storage.StorageRuntime;
import dev.felix.transport.ClientTrust;
import dev.felix.transport.TlsMaterial;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shard replication between three nodes in one JVM over real QUIC with mutual TLS, the test playing the
 * metadata leader: quorum commit and its high watermark, the exact refusal when no majority answers in
 * time, failover to a fenced replica holding every acknowledged record, the ex-leader truncating its refused
 * tail, and a {@code leader}-mode leader returning with its disk, adopting what its replicas hold of its
 * epoch, and serving every acknowledged record at its offset.
 */
@Timeout(120)
class ReplicationTest {

    private static final StreamName ORDERS = new StreamName("t", "ns", "orders");
    private static final Duration WINDOW = Duration.ofSeconds(1);
    private static final String LEADER_GONE = "the leader is gone and no replica holding this shard's log can take over";

    @TempDir
    Path dir;

    private final TestView view = new TestView();
    private final Metadata metadata = LocalMetadata.inMemory();
    private final Map<String, TestNode> nodes = new LinkedHashMap<>();
    private final ReplicationSettings settings = new ReplicationSettings(WINDOW, 1 << 20, Duration.ofMillis(200),
            Duration.ofMillis(50), Duration.ofMillis(20), 2);
    private final Map<String, TlsMaterial> identities = new LinkedHashMap<>();
    private X509TrustManager trust;

    @BeforeEach
    void startNodes() throws Exception {
        List<X509Certificate> anchors = new ArrayList<>();
        for (String id : List.of("n1", "n2", "n3")) {
            TlsMaterial identity = TlsMaterial.generateSelfSigned(id, List.of());
            identities.put(id, identity);
            anchors.add(identity.chain().get(0));
        }
        trust = (X509TrustManager) ClientTrust.certificates(anchors).trustManager();
        for (String id : identities.keySet()) {
            nodes.put(id, new TestNode(id, dir.resolve(id), view, metadata, identities.get(id), trust, settings));
        }
    }

    @AfterEach
    void stopNodes() {
        nodes.values().forEach(TestNode::close);
        metadata.close();
    }

    private ShardKey create(Consistency consistency) throws Exception {
        StreamConfig config = new StreamConfig(1, true, StreamConfig.Fsync.ON_COMMIT, 0, null).withReplication(consistency, 3);
        metadata.createTenant("t").join();
        long uid = metadata.createStream(ORDERS, config).join().uid();
        ShardKey key = ShardKey.stream(uid, 0);
        view.place(new ShardPlacement(key, ORDERS.toString(), true, consistency, List.of("n1", "n2", "n3"), "n1", 1,
                ShardStatus.ONLINE, null));
        await().atMost(Duration.ofSeconds(20)).until(() -> nodes.get("n1").replication.readyToLead(key, 1));
        return key;
    }

    private ReplicaReport report(String node, ShardKey key) {
        return nodes.get(node).replication.reports().stream().filter(r -> r.key().equals(key)).findFirst().orElse(null);
    }

    private void awaitReport(String node, ShardKey key, long logEnd) {
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            ReplicaReport r = report(node, key);
            return r != null && r.logEnd() == logEnd;
        });
    }

    private LogConfig logConfig() throws Exception {
        return nodes.get("n1").broker.logConfig(metadata.stream(ORDERS).orElseThrow().config());
    }

    @Test
    void quorum_commitsOnAMajority_refusesInTimeWithout_failsOverToAFencedReplica_andTheExLeaderTruncates()
            throws Exception {
        ShardKey key = create(Consistency.QUORUM);
        TestNode n1 = nodes.get("n1");
        for (String p : List.of("a", "b", "c")) {
            assertThat(TestNode.publish(n1.shard(ORDERS), p)).isInstanceOf(Long.class);
        }
        awaitReport("n2", key, 3);
        awaitReport("n3", key, 3);
        assertThat(TestNode.read(n1.shard(ORDERS), 0, 3)).containsExactly("0=a", "1=b", "2=c");

        // Both followers stop following (metadata marked the leader down): no majority can hold "x".
        view.status("n1", NodeStatus.DOWN);
        await().atMost(Duration.ofSeconds(10)).until(() -> report("n2", key).fencedEpoch() == 1
                && report("n3", key).fencedEpoch() == 1);
        long started = System.nanoTime();
        Object refused = TestNode.publish(n1.shard(ORDERS), "x");
        long tookMillis = (System.nanoTime() - started) / 1_000_000;
        assertThat(refused).isInstanceOfSatisfying(FelixError.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.QUORUM_TIMEOUT);
            assertThat(e.message()).isEqualTo("the batch is durable here but did not reach a majority within 1s");
        });
        assertThat(tookMillis).as("refused once the window ran out, not before").isGreaterThanOrEqualTo(900);
        assertThat(n1.replication.leading(key).orElseThrow().committedEnd()).as("x is not visible").isEqualTo(3);
        assertThat(TestNode.publish(n1.shard(ORDERS), "y")).as("the writer keeps going: refused in turn")
                .isInstanceOfSatisfying(FelixError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.QUORUM_TIMEOUT));

        // The leader is lost; the fenced replicas both hold every acknowledged record: promote one.
        n1.close();
        assertThat(report("n2", key).logEnd()).isEqualTo(3);
        view.setLeader(key, "n2");
        TestNode n2 = nodes.get("n2");
        await().atMost(Duration.ofSeconds(20)).until(() -> TestNode.publish(n2.shard(ORDERS), "d") instanceof Long);
        assertThat(TestNode.read(n2.shard(ORDERS), 0, 4)).containsExactly("0=a", "1=b", "2=c", "3=d");

        // The ex-leader returns with its disk: it follows, truncates x and y (never acknowledged), converges.
        n1.restart();
        view.status("n1", NodeStatus.UP);
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            ReplicaReport r = report("n1", key);
            return r != null && r.logEnd() == 4 && r.lastEpoch() == 2;
        });
        LogConfig config = logConfig();
        nodes.values().forEach(TestNode::close);
        List<String> n2Log = n2.logContents(ORDERS, key.uid(), config);
        assertThat(n2Log).containsExactly("0=a@1", "1=b@1", "2=c@1", "3=d@2");
        assertThat(n1.logContents(ORDERS, key.uid(), config)).isEqualTo(n2Log);
        assertThat(nodes.get("n3").logContents(ORDERS, key.uid(), config)).isEqualTo(n2Log);
    }

    @Test
    void quorum_aRefusedBatchBecomesVisibleOnceAMajorityHoldsItLater() throws Exception {
        ShardKey key = create(Consistency.QUORUM);
        TestNode n1 = nodes.get("n1");
        assertThat(TestNode.publish(n1.shard(ORDERS), "a")).isEqualTo(0L);
        view.status("n1", NodeStatus.DOWN);
        await().atMost(Duration.ofSeconds(10)).until(() -> report("n2", key).fencedEpoch() == 1
                && report("n3", key).fencedEpoch() == 1);
        assertThat(TestNode.publish(n1.shard(ORDERS), "late")).isInstanceOf(FelixError.class);

        view.status("n1", NodeStatus.UP); // the followers follow again and fetch it
        await().atMost(Duration.ofSeconds(20)).until(() -> n1.replication.leading(key).orElseThrow().committedEnd() == 2);
        assertThat(TestNode.read(n1.shard(ORDERS), 0, 2)).containsExactly("0=a", "1=late");
    }

    @Test
    void leader_theShardStaysUnavailableWhenItsLeaderIsLost_andItsReturnAdoptsAndServesEveryAcknowledgedRecord()
            throws Exception {
        ShardKey key = create(Consistency.LEADER);
        TestNode n1 = nodes.get("n1");
        for (int i = 0; i < 5; i++) {
            assertThat(TestNode.publish(n1.shard(ORDERS), "p" + i)).isEqualTo((long) i);
        }
        awaitReport("n2", key, 5);
        awaitReport("n3", key, 5);

        n1.close();
        view.status("n1", NodeStatus.DOWN);
        view.unavailable(key, LEADER_GONE);
        Object refused = TestNode.publish(nodes.get("n2").shard(ORDERS), "nope");
        assertThat(refused).isInstanceOfSatisfying(FelixError.class, e -> assertThat(e.message()).isEqualTo(LEADER_GONE));
        assertThat(view.placement(key).epoch()).isEqualTo(1);

        // The leader's disk lost its last two records (say, a periodic fsync that had not run); its replicas
        // still hold them.
        LogConfig config = logConfig();
        Path n1Log = new dev.felix.storage.LogId("t", "ns", "orders", 0, key.uid()).resolve(n1.dir.resolve("logs"));
        try (StorageRuntime rt = StorageRuntime.builder().flushThreads(1).build();
                SegmentedLog log = SegmentedLog.open(n1Log, config, rt)) {
            log.truncate(3);
        }

        n1.restart();
        view.status("n1", NodeStatus.UP);
        await().atMost(Duration.ofSeconds(20)).until(() -> view.placement(key).status() == ShardStatus.ONLINE);
        assertThat(view.placement(key).epoch()).as("a new epoch for the returning leader").isEqualTo(2);
        await().atMost(Duration.ofSeconds(20)).until(() -> TestNode.publish(n1.shard(ORDERS), "p5") instanceof Long);
        assertThat(TestNode.read(n1.shard(ORDERS), 0, 6))
                .containsExactly("0=p0", "1=p1", "2=p2", "3=p3", "4=p4", "5=p5");
    }

    @Test
    void aCacheThatMovedAway_isReleasedHere_andItsWatchersAreToldWhyInsteadOfFollowingAFrozenCopy() throws Exception {
        metadata.createTenant("t").join();
        CacheName name = CacheName.parse("t/ns/presence");
        long uid = metadata.createCache(name, CacheConfig.memory()).join().uid();
        ShardKey key = ShardKey.cache(uid);
        view.place(new ShardPlacement(key, name.toString(), false, Consistency.LEADER, List.of("n1"), "n1", 1,
                ShardStatus.ONLINE, null));
        Cache onN1 = nodes.get("n1").broker.caches().get(name);
        onN1.put("k", "v".getBytes(java.nio.charset.StandardCharsets.UTF_8), null).get();
        List<WatchItem> items = new java.util.concurrent.CopyOnWriteArrayList<>();
        CacheWatch[] watch = new CacheWatch[1];
        watch[0] = onN1.watch(null, null, () -> {
            WatchItem item;
            while (watch[0] != null && (item = watch[0].poll()) != null) {
                items.add(item);
            }
        }).get();
        WatchItem first;
        while ((first = watch[0].poll()) != null) {
            items.add(first);
        }

        // While n1 was unreachable the metadata leader moved the memory cache to n2 (a new, empty incarnation).
        view.place(new ShardPlacement(key, name.toString(), false, Consistency.LEADER, List.of("n2"), "n2", 2,
                ShardStatus.ONLINE, null));

        await().atMost(Duration.ofSeconds(10)).until(() -> items.stream().anyMatch(i -> i instanceof WatchEnded));
        WatchEnded ended = (WatchEnded) items.stream().filter(i -> i instanceof WatchEnded).findFirst().orElseThrow();
        assertThat(ended.reason().code()).isEqualTo(ErrorCode.NOT_LEADER);
        assertThat(ended.reason().message()).contains("node n2 now serves cache t/ns/presence");
        assertThat(nodes.get("n1").broker.caches().caches()).as("n1 holds no instance of it any more").isEmpty();
        assertThat(nodes.get("n2").broker.caches().caches()).as("n2 was not touched (it opens on first use)").isEmpty();
    }
}
