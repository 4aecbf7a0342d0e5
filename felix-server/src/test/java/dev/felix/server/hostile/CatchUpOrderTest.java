package dev.felix.server.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.FelixClient;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.metadata.RaftMetadata;
import dev.felix.core.cache.CacheName;
import dev.felix.server.FelixServer;
import dev.felix.server.cluster.ClusterTestBase;
import dev.felix.server.cluster.TestCluster;
import dev.felix.wire.Capabilities;
import dev.felix.wire.Message;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two cache puts pipelined on one client stream of a cluster node: the first names a cache the node has not applied
 * yet, so it waits for the node to catch up with the metadata; the second names a cache the node knows and leads.
 * The second must not take effect before the first (the stream's requests keep their order of effects, not only of
 * replies): while the node's applying is held, the first cannot proceed, and neither may the second. Raw frames,
 * because the SDK gives each cache its own stream.
 */
@Timeout(120)
class CatchUpOrderTest extends ClusterTestBase {

    @Test
    void aRequestBehindOneThatWaitsForTheMetadata_waitsToo_thenBothAreAnsweredInOrder() throws Exception {
        cluster = TestCluster.startThree(dir);
        FelixServer lagging = cluster.nodes().values().stream()
                .filter(n -> !((RaftMetadata) n.broker().metadata()).raftStatus().leader()).findFirst().orElseThrow();
        FelixServer writerNode = cluster.nodes().values().stream().filter(n -> n != lagging).findFirst().orElseThrow();
        FelixClient writer = cluster.connect(writerNode);
        RaftMetadata laggingMetadata = (RaftMetadata) lagging.broker().metadata();
        String led = ledBy(writer, lagging, laggingMetadata); // a memory cache the lagging node knows and leads
        FelixClient reader = cluster.connect(lagging);

        try (RawFelixClient raw = RawFelixClient.create(lagging); RawConnection connection = raw.connect()) {
            RawStream stream = connection.authenticated(Capabilities.ALL);
            try (AutoCloseable held = laggingMetadata.holdApplying()) {
                writer.caches().create(CacheRef.parse("t1/default/created-elsewhere"), CacheSpec.memory());
                stream.send(new Message.CachePut("t1", "default", "created-elsewhere", "k", bytes("first"), 1L, null));
                stream.send(new Message.CachePut("t1", "default", led, "k", bytes("second"), 2L, null));
                // The first waits for a catch-up that cannot end while applying is held; the second waits behind it.
                await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                        .until(() -> reader.cache(CacheRef.parse("t1/default/" + led)).get("k").isEmpty());
                assertThat(stream.frames()).as("no reply yet, only auth_ok").hasSize(1);
            }
            Message first = stream.frame(1).message();
            Message second = stream.frame(2).message();
            // The first cache may be led by another node (then not_leader): what counts is that it was answered first.
            assertThat(first instanceof Message.CacheOk ok ? Long.valueOf(ok.requestId())
                    : ((Message.ErrorMessage) first).requestId()).as(first.toString()).isEqualTo(1L);
            assertThat(second).as(second.toString()).isInstanceOf(Message.CacheOk.class);
            assertThat(((Message.CacheOk) second).requestId()).isEqualTo(2L);
            Optional<byte[]> value = reader.cache(CacheRef.parse("t1/default/" + led)).get("k");
            assertThat(value).hasValueSatisfying(v -> assertThat(new String(v, StandardCharsets.UTF_8))
                    .isEqualTo("second"));
        }
    }

    /** Creates memory caches through {@code writer} until one is led by {@code node}; returns its name. */
    private static String ledBy(FelixClient writer, FelixServer node, RaftMetadata metadata) {
        String nodeId = metadata.localNodeId();
        for (int i = 0; i < 12; i++) {
            String name = "led-here-" + i;
            writer.caches().create(CacheRef.parse("t1/default/" + name), CacheSpec.memory());
            await().atMost(Duration.ofSeconds(20)).until(() -> metadata.cache(new CacheName("t1", "default", name))
                    .isPresent() && node.cluster().placements().stream()
                    .anyMatch(p -> p.key().kind() == ShardKey.Kind.CACHE && p.name().equals("t1/default/" + name)));
            boolean here = node.cluster().placements().stream().anyMatch(p -> p.key().kind() == ShardKey.Kind.CACHE
                    && p.name().equals("t1/default/" + name) && p.leader().equals(nodeId));
            if (here) {
                await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> node.broker().caches()
                        .find(new CacheName("t1", "default", name)).isPresent());
                return name;
            }
        }
        throw new AssertionError("none of 12 memory caches was placed on " + nodeId);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
