package dev.felix.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.felix.client.CacheRef;
import dev.felix.client.ClientConfig;
import dev.felix.client.ClusterMirror;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.FelixCluster;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.cluster.ShardStatus;
import dev.felix.core.Consistency;
import dev.felix.core.ErrorCode;
import dev.felix.core.StreamConfig;
import dev.felix.core.cache.CacheConfig;
import dev.felix.core.cache.CacheName;
import dev.felix.core.cache.CacheSnapshots;
import dev.felix.server.FelixServer;
import dev.felix.transport.ClientTrust;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A log cache in a cluster replicates exactly like a durable stream shard: its changes go to its replicas through
 * the same commit gate, and a clean stop of its leader hands it to a replica that serves every acknowledged put.
 * Under {@code quorum} a put is acknowledged only once a majority holds it.
 */
@Timeout(240)
class ClusterLogCacheTest extends ClusterTestBase {

    private static final CacheRef CONFIG = CacheRef.parse("t1/default/config");
    private static final CacheName NAME = new CacheName("t1", "default", "config");

    @Test
    void aQuorumLogCacheIsReplicated_andACleanStopHandsItToAReplicaServingEveryAcknowledgedPut() throws Exception {
        cluster = TestCluster.startThree(dir);
        FelixServer n1 = cluster.node("n1");
        n1.broker().caches().create(NAME, CacheConfig.builder().backing(CacheConfig.Backing.LOG)
                .fsync(StreamConfig.Fsync.ON_COMMIT).consistency(Consistency.QUORUM).build());
        ShardPlacement placement = placement(n1);
        assertThat(placement.durable()).isTrue();
        assertThat(placement.consistency()).isEqualTo(Consistency.QUORUM);
        assertThat(placement.replicas()).containsExactlyInAnyOrder("n1", "n2", "n3");
        String leaderId = placement.leader();
        String otherId = cluster.nodes().keySet().stream().filter(id -> !id.equals(leaderId)).findFirst().orElseThrow();

        // A node that does not lead the cache says who does, and never opens the cache's log itself.
        FelixClientException redirect = catchThrowableOfType(FelixClientException.class,
                () -> cluster.connect(cluster.node(otherId)).cache(CONFIG).put("k", bytes("v"), null));
        assertThat(redirect.code()).isEqualTo(dev.felix.wire.ErrorCode.NOT_LEADER);
        assertThat(redirect.leader().node()).isEqualTo(leaderId);

        FelixClient leader = cluster.connect(cluster.node(leaderId));
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> leader.cache(CONFIG).put("key-0", bytes("v0"), null) == 0);
        for (int i = 1; i < 200; i++) {
            assertThat(leader.cache(CONFIG).put("key-" + i, bytes("v" + i), null)).isEqualTo(i);
        }
        assertThat(leader.cache(CONFIG).delete("key-7")).isEqualTo(200);

        // Acknowledged under quorum: at least one follower holds all 201 changes (the leader's gate knows).
        var row = leader.cluster().status().shards().stream().filter(r -> r.name().equals(CONFIG.toString()))
                .findFirst().orElseThrow();
        assertThat(row.kind()).isEqualTo("cache");
        assertThat(row.consistency()).isEqualTo("quorum");
        assertThat(row.hwm()).isEqualTo(201L);
        // The follower's node refuses to open it through its own cache runtime: the directory is its replica's.
        Throwable refused = catchThrowableOfType(java.util.concurrent.CompletionException.class,
                () -> cluster.node(otherId).broker().caches().get(NAME).load().join()).getCause();
        assertThat(((dev.felix.core.FelixException) refused).error().code()).isEqualTo(ErrorCode.NOT_LEADER);

        ClientConfig config = ClientConfig.builder(ClientTrust.certificates(cluster.ca().cert())).tenant("t1")
                .connectTimeout(Duration.ofSeconds(3)).requestTimeout(Duration.ofSeconds(30)).build();
        try (FelixCluster client = FelixCluster.connect(config, cluster.nodes().values().stream()
                .map(FelixServer::quicAddress).toList());
                ClusterMirror mirror = client.mirror(CONFIG, null)) {
            await().atMost(Duration.ofSeconds(20)).until(() -> mirror.caughtUp() && mirror.snapshot().size() == 199);
            try (var anywhere = client.cache(CONFIG)) {
                assertThat(anywhere.get("key-3")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("v3")));
            }

            // A clean stop hands the cache to a replica that holds every change.
            cluster.stop(leaderId);
            FelixServer survivor = cluster.nodes().values().iterator().next();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                ShardPlacement p = placement(survivor);
                return !leaderId.equals(p.leader()) && p.status() == ShardStatus.ONLINE;
            });
            String newLeaderId = placement(survivor).leader();
            FelixClient newLeader = cluster.connect(cluster.node(newLeaderId));
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> newLeader.cache(CONFIG).get("key-0").isPresent());
            for (int i = 0; i < 200; i++) {
                Optional<byte[]> v = readOnceCommitted(newLeader, "key-" + i);
                if (i == 7) {
                    assertThat(v).as("the acknowledged delete survived").isEmpty();
                } else {
                    assertThat(v).as("key-" + i).isPresent();
                    assertThat(new String(v.get(), StandardCharsets.UTF_8)).isEqualTo("v" + i);
                }
            }
            // The cluster client's cache follows it to its new home (the route it knew names the stopped node).
            try (var anywhere = client.cache(CONFIG)) {
                assertThat(anywhere.put("after", bytes("x"), null))
                        .as("the change sequence goes on where it was").isEqualTo(201);
                assertThat(anywhere.get("after")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("x")));
                assertThat(anywhere.lastWriteMayBeRepeated()).isFalse();
            }

            // The mirror followed the cache to its new home and has every entry, the new one included.
            await().atMost(Duration.ofSeconds(30)).until(() -> mirror.caughtUp() && mirror.get("after").isPresent());
            assertThat(mirror.snapshot()).hasSize(200).doesNotContainKey("key-7");
        }
    }

    @Test
    void aReplicaThatMissedACompaction_takesTheLeadersSnapshot_andTakesOverServingEveryPut() throws Exception {
        cluster = TestCluster.startThree(dir);
        FelixServer n1 = cluster.node("n1");
        // Small segments and frequent snapshots: the leader compacts its log many times below.
        n1.broker().caches().create(NAME, CacheConfig.builder().backing(CacheConfig.Backing.LOG)
                .fsync(StreamConfig.Fsync.ON_COMMIT).snapshotEveryChanges(50).segmentBytes(4096).build());
        ShardPlacement placement = placement(n1);
        String leaderId = placement.leader();
        java.util.List<String> followers = placement.followers().stream().sorted().toList();
        String behind = followers.get(0);
        String other = followers.get(1);
        FelixClient leader = cluster.connect(cluster.node(leaderId));
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> leader.cache(CONFIG).put("key-0", value(0), null) == 0);
        for (int i = 1; i < 20; i++) {
            leader.cache(CONFIG).put("key-" + i, value(i), null);
        }

        // One replica is away while the leader snapshots and trims its log well past where that replica ends.
        cluster.stop(behind);
        for (int i = 20; i < 600; i++) {
            leader.cache(CONFIG).put("key-" + (i % 300), value(i), null);
        }
        Path leaderDir = cluster.node(leaderId).broker().caches().logDirectory(NAME, placement.key().uid());
        // Its snapshots are far past offset 20, and its log is trimmed below the older of the two it keeps.
        await().atMost(Duration.ofSeconds(20)).until(() -> CacheSnapshots.newest(leaderDir).orElse(0) >= 500);

        // Back, it finds the leader's log starts past its own end: it takes the leader's snapshot and the rest.
        cluster.restart(behind);
        Path replicaDir = cluster.node(behind).broker().caches().logDirectory(NAME, placement.key().uid());
        await().atMost(Duration.ofSeconds(60)).until(() -> lag(leader, behind) == 0L
                && CacheSnapshots.newest(replicaDir).isPresent());

        // The other replica goes away; a few more puts reach only the leader and the replica that came back.
        cluster.stop(other);
        for (int i = 600; i < 610; i++) {
            leader.cache(CONFIG).put("key-" + (i % 300), value(i), null);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> lag(leader, behind) == 0L);

        // A clean stop hands the cache to the one caught-up replica: the one that took the snapshot.
        cluster.stop(leaderId);
        cluster.restart(other); // a metadata majority again
        FelixServer taker = cluster.node(behind);
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            ShardPlacement p = placement(taker);
            return behind.equals(p.leader()) && p.status() == ShardStatus.ONLINE;
        });
        FelixClient newLeader = cluster.connect(taker);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> newLeader.cache(CONFIG).get("key-0").isPresent());
        for (int k = 0; k < 300; k++) {
            int last = k + 300 * ((609 - k) / 300); // the last put of key-k
            assertThat(newLeader.cache(CONFIG).get("key-" + k)).as("key-" + k).hasValueSatisfying(
                    v -> assertThat(new String(v, StandardCharsets.UTF_8)).isEqualTo(new String(value(last),
                            StandardCharsets.UTF_8)));
        }
        assertThat(taker.broker().caches().get(NAME).info().nextOffset()).isEqualTo(610);
        assertThat(taker.broker().caches().get(NAME).info().oldestOffset())
                .as("loaded from the shipped snapshot: its log does not reach back to 0").isPositive();
        assertThat(newLeader.cache(CONFIG).put("after", bytes("x"), null)).isEqualTo(610);
    }

    @Test
    void aQuorumCacheWithoutAMajority_refusesPutsWithTheExactText_whileReadsAndWatchesGoOn() throws Exception {
        cluster = TestCluster.startThree(dir);
        FelixServer n1 = cluster.node("n1");
        n1.broker().caches().create(NAME, CacheConfig.builder().backing(CacheConfig.Backing.LOG)
                .fsync(StreamConfig.Fsync.ON_COMMIT).consistency(Consistency.QUORUM).build());
        ShardPlacement placement = placement(n1);
        String leaderId = placement.leader();
        FelixClient leader = cluster.connect(cluster.node(leaderId));
        dev.felix.client.Cache cache = leader.cache(CONFIG);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> cache.put("k", bytes("v1"), null) == 0);
        dev.felix.client.CacheMirror mirror = leader.mirror(CONFIG, null);
        await().atMost(Duration.ofSeconds(10)).until(() -> mirror.get("k").isPresent());

        // Both followers go: no majority (of the shard, and of the metadata group).
        for (String f : placement.followers()) {
            cluster.stop(f);
        }
        FelixClientException refused = catchThrowableOfType(FelixClientException.class,
                () -> cache.put("k", bytes("v2"), null));
        assertThat(refused.code()).isEqualTo(dev.felix.wire.ErrorCode.QUORUM_TIMEOUT);
        assertThat(refused.brokerMessage())
                .isEqualTo("the batch is durable here but did not reach a majority within 5s");

        // The cache was not unloaded: what readers saw stays visible, the watch goes on, later puts are taken
        // (and refused in turn).
        assertThat(cache.get("k")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("v1")));
        assertThat(mirror.endCause()).isNull();
        assertThat(new String(mirror.get("k").orElseThrow(), StandardCharsets.UTF_8)).isEqualTo("v1");
        FelixClientException again = catchThrowableOfType(FelixClientException.class,
                () -> cache.put("k2", bytes("x"), null));
        assertThat(again.code()).isEqualTo(dev.felix.wire.ErrorCode.QUORUM_TIMEOUT);
        assertThat(cache.get("k")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("v1")));

        // A follower back: a majority again. The refused changes commit after all, in order, and puts succeed.
        cluster.restart(placement.followers().get(0));
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> leader.cache(CONFIG).put("k3", bytes("y"), null) == 3);
        assertThat(cache.get("k")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("v2")));
        await().atMost(Duration.ofSeconds(10)).until(() -> mirror.get("k3").isPresent());
        assertThat(mirror.endCause()).isNull();
        assertThat(new String(mirror.get("k").orElseThrow(), StandardCharsets.UTF_8)).isEqualTo("v2");
        assertThat(mirror.get("k2")).isPresent();
    }

    /**
     * The value of {@code key} on the new leader. A key whose last change the new leader inherited uncommitted (the
     * delete at offset 200 may be one) is refused as being taken over until a majority holds that change; any other
     * refusal, or an answer from before the change, fails the test.
     */
    private static Optional<byte[]> readOnceCommitted(FelixClient newLeader, String key) {
        AtomicReference<Optional<byte[]>> value = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            try {
                value.set(newLeader.cache(CONFIG).get(key));
                return true;
            } catch (FelixClientException e) {
                assertThat(e.code()).isEqualTo(dev.felix.wire.ErrorCode.UNAVAILABLE);
                assertThat(e.brokerMessage()).startsWith("cache " + CONFIG + " is being taken over: key " + key + " ");
                return false;
            }
        });
        return value.get();
    }

    private static Long lag(FelixClient leader, String node) {
        try {
            var row = leader.cluster().status().shards().stream().filter(r -> r.name().equals(CONFIG.toString()))
                    .findFirst().orElseThrow();
            return row.lag() == null ? null : row.lag().stream().filter(l -> l.node().equals(node))
                    .map(dev.felix.wire.ReplicaLag::records).findFirst().orElse(null);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static byte[] value(int i) {
        return ("value-" + i + "-" + "x".repeat(80)).getBytes(StandardCharsets.UTF_8);
    }

    private static ShardPlacement placement(FelixServer node) {
        return placement(node, ShardKey.Kind.CACHE, CONFIG.toString());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
