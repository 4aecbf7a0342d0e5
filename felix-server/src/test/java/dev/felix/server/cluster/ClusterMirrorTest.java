package dev.felix.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.CacheMirror;
import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.ClientConfig;
import dev.felix.client.ClusterMirror;
import dev.felix.client.FelixCluster;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.server.FelixServer;
import dev.felix.transport.ClientTrust;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A memory cache lives on one node; when that node is lost the cluster moves it to another node as a new, empty
 * incarnation. A {@link ClusterMirror} follows it there: its copy is replaced by the new home's snapshot and its
 * listeners are told so ({@code onReset}), never a silent reset, and it goes on following the cache.
 */
@Timeout(180)
class ClusterMirrorTest extends ClusterTestBase {

    private static final CacheRef PRESENCE = CacheRef.parse("t1/default/presence");

    @Test
    void aMirrorOfAMemoryCache_followsItToItsNewHome_whenItsNodeIsLost_andSaysTheCopyWasReplaced() throws Exception {
        cluster = TestCluster.startThree(dir);
        FelixServer n1 = cluster.node("n1");
        cluster.connect(n1).caches().create(PRESENCE, CacheSpec.memory());
        String home = home(n1);
        ClientConfig config = ClientConfig.builder(ClientTrust.certificates(cluster.ca().cert())).tenant("t1")
                .connectTimeout(Duration.ofSeconds(3)).requestTimeout(Duration.ofSeconds(30)).build();
        var homeClient = cluster.connect(cluster.node(home));
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> homeClient.cache(PRESENCE).put("old", bytes("v"), null) >= 0);

        try (FelixCluster client = FelixCluster.connect(config, cluster.nodes().values().stream()
                .map(FelixServer::quicAddress).toList());
                ClusterMirror mirror = client.mirror(PRESENCE, null)) {
            assertThat(mirror.get("old")).isPresent();
            AtomicLong resets = new AtomicLong();
            mirror.addListener(new CacheMirror.Listener() {
                @Override
                public void onReset(long offset) {
                    resets.incrementAndGet();
                }

                @Override
                public void onChange(String key, byte[] value, long offset) {
                }
            });

            // The cache's node goes away; after the failure timeout the cluster moves the cache elsewhere.
            cluster.stop(home);
            FelixServer survivor = cluster.nodes().values().iterator().next();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                String now = placement(survivor).leader();
                return !now.equals(home) && cluster.nodes().containsKey(now);
            });
            String newHome = placement(survivor).leader();

            await().atMost(Duration.ofSeconds(30)).until(() -> mirror.homes() == 2 && mirror.caughtUp());
            assertThat(resets.get()).as("listeners are told the copy was replaced").isPositive();
            assertThat(mirror.get("old")).as("the new incarnation starts empty, and the copy says so").isEmpty();
            assertThat(mirror.endCause()).isNull();

            cluster.connect(cluster.node(newHome)).cache(PRESENCE).put("new", bytes("w"), null);
            await().atMost(Duration.ofSeconds(10)).until(() -> mirror.get("new").isPresent());
        }
    }

    private static String home(FelixServer node) {
        return placement(node).leader();
    }

    private static ShardPlacement placement(FelixServer node) {
        return placement(node, ShardKey.Kind.CACHE, PRESENCE.toString());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
