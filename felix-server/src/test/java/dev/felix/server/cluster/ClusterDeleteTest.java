package dev.felix.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.Cache;
import dev.felix.client.CacheMirror;
import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.server.FelixServer;
import dev.felix.wire.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A delete runs on the node that was asked; every other node learns of it from metadata and must let go of what
 * it held: the shard's leader ends its subscribers and closes its log, the followers stop fetching, and every
 * node removes its copy of the log, as a single node does on delete. Likewise for a cache dropped through a node
 * that does not serve it. A stream created again under the same name is a new stream on every node.
 */
@Timeout(180)
class ClusterDeleteTest extends ClusterTestBase {

    private static final StreamRef GONE = StreamRef.parse("t1/default/gone");
    private static final CacheRef SESSIONS = CacheRef.parse("t1/default/sessions");

    @Test
    void aDeleteThroughAnotherNode_closesTheLeadersRuntime_endsItsSubscribers_andRemovesEveryCopy() throws Exception {
        cluster = TestCluster.startThree(dir);
        FelixServer n1 = cluster.node("n1");
        FelixClient admin = cluster.connect(n1);
        String streamLeader = admin.streams().create(GONE, new StreamSpec(1, true, "on_commit", null, null)
                .replicated("leader", 3)).shardInfo().get(0).leader();
        admin.caches().create(SESSIONS, CacheSpec.log("on_commit"));
        String cacheLeader = placement(n1, ShardKey.Kind.CACHE, SESSIONS.toString()).leader();
        // The node asked to delete serves neither: only metadata tells the leaders.
        String asked = Stream.of("n1", "n2", "n3").filter(id -> !id.equals(streamLeader) && !id.equals(cacheLeader))
                .findFirst().orElseThrow();

        FelixClient atLeader = cluster.connect(cluster.node(streamLeader));
        Publisher publisher = atLeader.publisher(GONE);
        publishUntilAccepted(publisher, bytes("m0"), Duration.ofSeconds(30));
        for (int i = 1; i < 5; i++) {
            publisher.publish(bytes("m" + i));
        }
        Subscription subscription = atLeader.subscribe(SubscribeOptions.of(GONE).fromEarliest());
        assertThat(((Event) subscription.next(Duration.ofSeconds(10))).offset()).isZero();
        FelixClient atCacheLeader = cluster.connect(cluster.node(cacheLeader));
        Cache cache = atCacheLeader.cache(SESSIONS);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> cache.put("k", bytes("v"), null) >= 0);
        CacheMirror mirror = atCacheLeader.mirror(SESSIONS, null);
        await().atMost(Duration.ofSeconds(10)).until(() -> mirror.get("k").isPresent());
        // Every node holds a copy of both logs (the followers fetched them).
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.nodes().values().stream()
                .allMatch(n -> logDirs(n).stream().anyMatch(d -> d.getFileName().toString().contains("gone"))
                        && logDirs(n).stream().anyMatch(d -> d.getFileName().toString().contains("sessions"))));

        FelixClient askedClient = cluster.connect(cluster.node(asked));
        askedClient.streams().delete(GONE, true);
        askedClient.caches().drop(SESSIONS, true);

        FelixClientException end = drainUntilEnd(subscription);
        assertThat(end.code()).as("the leader's subscriber is told").isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(end.getMessage()).contains("was deleted");
        await().atMost(Duration.ofSeconds(10)).until(() -> mirror.endCause() != null);
        assertThat(mirror.endCause().code()).as("the cache's watcher is told").isEqualTo(ErrorCode.NOT_FOUND);
        for (FelixServer node : cluster.nodes().values()) {
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(node.broker().streams()).as("stream runtimes on " + node.cluster())
                        .noneMatch(s -> s.name().toString().equals(GONE.toString()));
                assertThat(node.broker().caches().caches()).as("open caches").isEmpty();
                assertThat(logDirs(node)).as("no copy of either log is left").isEmpty();
            });
        }

        // Created again: a new, empty stream on every node, not the old runtime answering under the old uid.
        admin.streams().create(GONE, new StreamSpec(1, true, "on_commit", null, null).replicated("leader", 3));
        String newLeader = placement(n1, ShardKey.Kind.STREAM, GONE.toString()).leader();
        Publisher again = cluster.connect(cluster.node(newLeader)).publisher(GONE);
        publishUntilAccepted(again, bytes("fresh"), Duration.ofSeconds(30));
        Subscription fresh = cluster.connect(cluster.node(newLeader)).subscribe(SubscribeOptions.of(GONE).fromEarliest());
        Event first = (Event) fresh.next(Duration.ofSeconds(10));
        assertThat(first.offset()).as("a re-created stream starts empty").isZero();
        assertThat(new String(first.payload(), StandardCharsets.UTF_8)).isEqualTo("fresh");
    }

    @Test
    void aNodeAwayDuringADelete_removesItsCopiesWhenItComesBack_andKeepsWhatStillExists() throws Exception {
        cluster = TestCluster.startThree(dir);
        FelixServer n1 = cluster.node("n1");
        FelixClient admin = cluster.connect(n1);
        StreamRef kept = StreamRef.parse("t1/default/kept");
        for (StreamRef s : List.of(GONE, kept)) {
            admin.streams().create(s, new StreamSpec(1, true, "on_commit", null, null).replicated("leader", 3));
        }
        admin.caches().create(SESSIONS, CacheSpec.log("on_commit"));
        String away = placement(n1, ShardKey.Kind.STREAM, GONE.toString()).followers().stream().sorted().findFirst()
                .orElseThrow();
        for (StreamRef s : List.of(GONE, kept)) {
            Publisher p = cluster.connect(cluster.node(placement(n1, ShardKey.Kind.STREAM, s.toString()).leader()))
                    .publisher(s);
            publishUntilAccepted(p, bytes("m"), Duration.ofSeconds(30));
        }
        Cache cache = cluster.connect(cluster.node(placement(n1, ShardKey.Kind.CACHE, SESSIONS.toString()).leader()))
                .cache(SESSIONS);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> cache.put("k", bytes("v"), null) >= 0);
        FelixServer awayNode = cluster.node(away);
        await().atMost(Duration.ofSeconds(30)).until(() -> logDirs(awayNode).size() == 3);

        // The node is away while the stream and the cache are deleted through another node.
        Path awayLogs = awayNode.config().dataDir().resolve("logs");
        cluster.stop(away);
        FelixServer other = cluster.nodes().values().iterator().next();
        FelixClient asked = cluster.connect(other);
        asked.streams().delete(GONE, true);
        asked.caches().drop(SESSIONS, true);
        try (Stream<Path> left = Files.list(awayLogs)) {
            assertThat(left.toList()).as("its copies are still on its disk while it is away").hasSize(3);
        }

        // Back, it removes the copies of what metadata no longer holds, and only those.
        FelixServer back = cluster.restart(away);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(logDirs(back))
                .extracting(d -> d.getFileName().toString())
                .singleElement().asString().contains("kept"));
    }

    private static List<Path> logDirs(FelixServer node) {
        Path logs = node.config().dataDir().resolve("logs");
        if (!Files.isDirectory(logs)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(logs)) {
            return s.toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static FelixClientException drainUntilEnd(Subscription sub) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                sub.next(Duration.ofMillis(200));
            } catch (FelixClientException e) {
                return e;
            }
        }
        throw new AssertionError("the subscription did not end");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
