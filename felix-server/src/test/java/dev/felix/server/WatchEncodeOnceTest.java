package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.Cache;
import dev.felix.client.CacheMirror;
import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.FelixClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cache change is encoded once and its frame shared by every watch it reaches (issue 12 item 5), not encoded
 * once per watcher; every mirror still ends up with every change. Likewise the chunks of a snapshot many mirrors
 * start at together are encoded once for all of them.
 */
@Timeout(120)
class WatchEncodeOnceTest {

    private static final CacheRef CACHE = CacheRef.parse("t1/default/shared");
    private static final int MIRRORS = 10;
    private static final int CHANGES = 300;

    @TempDir
    Path dir;

    @Test
    void eachChangeIsEncodedOnce_forTenMirrors_andEveryMirrorGetsEveryChange() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient writer = broker.connect()) {
            writer.caches().create(CACHE, CacheSpec.memory());
            Cache cache = writer.cache(CACHE);
            List<FelixClient> clients = new ArrayList<>();
            try {
                List<CacheMirror> mirrors = new ArrayList<>();
                for (int i = 0; i < MIRRORS; i++) {
                    FelixClient c = broker.connect();
                    clients.add(c);
                    mirrors.add(c.mirror(CACHE, null));
                }
                var metrics = broker.server().metrics();
                long written = metrics.watchChangesWrittenBinary.sum();
                long encoded = metrics.watchChangeEncodingsBinary.sum();
                Map<String, String> expected = new HashMap<>();
                List<CompletableFuture<Long>> puts = new ArrayList<>();
                for (int i = 0; i < CHANGES; i++) {
                    String key = "k" + (i % 37);
                    String value = "v" + i + (i % 5 == 0 ? "x".repeat(2000) : ""); // some frames of a few KiB
                    puts.add(cache.putAsync(key, value.getBytes(StandardCharsets.UTF_8), null));
                    expected.put(key, value);
                }
                long tail = puts.get(CHANGES - 1).join() + 1;
                for (CacheMirror m : mirrors) {
                    await().atMost(Duration.ofSeconds(30)).until(() -> m.appliedOffset() == tail);
                    Map<String, String> copy = new HashMap<>();
                    m.snapshot().forEach((k, v) -> copy.put(k, new String(v, StandardCharsets.UTF_8)));
                    assertThat(copy).isEqualTo(expected);
                }
                assertThat(metrics.watchChangesWrittenBinary.sum() - written).isEqualTo((long) MIRRORS * CHANGES);
                // One event loop serves the broker here: one encoding per change.
                assertThat(metrics.watchChangeEncodingsBinary.sum() - encoded).isEqualTo(CHANGES);
            } finally {
                for (FelixClient c : clients) {
                    c.close();
                }
            }
        }
    }

    @Test
    void snapshotChunksAreEncodedOnce_forTwentyMirrorsStartingAtOneSnapshot() throws Exception {
        int entries = 2_500; // three chunks of at most 1,024 entries
        try (TestBroker broker = TestBroker.start(dir); FelixClient writer = broker.connect();
                FelixClient watchers = broker.connect(); FelixClient more = broker.connect()) {
            writer.caches().create(CACHE, CacheSpec.memory());
            Cache cache = writer.cache(CACHE);
            List<CompletableFuture<Long>> puts = new ArrayList<>();
            for (int i = 0; i < entries; i++) {
                puts.add(cache.putAsync("k" + i, ("v" + i).getBytes(StandardCharsets.UTF_8), null));
            }
            puts.forEach(CompletableFuture::join);
            var metrics = broker.server().metrics();
            long encoded = metrics.watchSnapshotEncodings.sum();
            long written = metrics.watchSnapshotChunksWritten.sum();
            List<CacheMirror> mirrors = new ArrayList<>();
            for (int i = 0; i < 2 * MIRRORS; i++) {
                mirrors.add((i % 2 == 0 ? watchers : more).mirror(CACHE, null));
            }
            for (CacheMirror m : mirrors) {
                await().atMost(Duration.ofSeconds(30)).until(() -> m.size() == entries && m.caughtUp());
                assertThat(m.get("k" + (entries - 1))).hasValueSatisfying(
                        v -> assertThat(new String(v, StandardCharsets.UTF_8)).isEqualTo("v" + (entries - 1)));
            }
            assertThat(metrics.watchSnapshotChunksWritten.sum() - written).isEqualTo(3L * 2 * MIRRORS);
            // the cache did not change meanwhile: one snapshot, its three chunks encoded once for all twenty
            assertThat(metrics.watchSnapshotEncodings.sum() - encoded).isEqualTo(3);
        }
    }
}
