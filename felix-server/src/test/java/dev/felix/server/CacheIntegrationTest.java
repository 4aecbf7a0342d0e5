package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.felix.client.Cache;
import dev.felix.client.CacheMirror;
import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.wire.ErrorCode;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.wire.Message;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Caches and watch over QUIC: operations, TTL, mirrors that converge after any stall. */
@Timeout(120)
class CacheIntegrationTest {

    @TempDir
    Path dir;

    private static final CacheRef CONFIG = CacheRef.parse("t1/default/config");

    @Test
    void putGetDelete_withChangeOffsets_andTtlExpiry() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect(); Cache cache = c.cache(CONFIG)) {
            assertThat(cache.put("a", bytes("1"), null)).isZero();
            assertThat(cache.put("b", bytes("2"), null)).isEqualTo(1);
            assertThat(cache.get("a")).hasValueSatisfying(v -> assertThat(text(v)).isEqualTo("1"));
            assertThat(cache.delete("a")).isEqualTo(2);
            assertThat(cache.get("a")).isEmpty();
            assertThat(cache.get("missing")).isEmpty();
            cache.put("short", bytes("x"), Duration.ofMillis(50));
            await().atMost(Duration.ofSeconds(5)).until(() -> cache.get("short").isEmpty());
            // The read hides the expired entry at once and asks the cache's writer to remove it (an EXPIRE
            // change); the entry count drops when the writer has done so, a moment later.
            await().atMost(Duration.ofSeconds(5)).until(() -> c.caches().describe(CONFIG).entries() == 1);
            Message.CacheInfo info = c.caches().describe(CONFIG);
            assertThat(info.backing()).isEqualTo("memory");
            assertThat(info.entries()).isEqualTo(1);
        }
    }

    @Test
    void unknownCacheWithoutAutoCreate_isNotFound_andCreateDefinesIt() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("auto_create", "false"));
                FelixClient c = broker.connect(); Cache cache = c.cache(CONFIG)) {
            assertThatThrownBy(() -> cache.put("k", bytes("v"), null)).isInstanceOfSatisfying(
                    FelixClientException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
            c.caches().create(CONFIG, CacheSpec.memory().withMaxEntries(2));
            assertThat(cache.put("k", bytes("v"), null)).isZero();
        }
    }

    @Test
    void mirrors_convergeToTheFinalStateUnderConcurrentWriters() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient writers = broker.connect();
                FelixClient watchers = broker.connect()) {
            writers.caches().create(CONFIG, CacheSpec.memory());
            Cache seed = writers.cache(CONFIG);
            for (int i = 0; i < 50; i++) {
                seed.put("key-" + i, bytes("seed"), null);
            }
            List<CacheMirror> mirrors = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                mirrors.add(watchers.mirror(CONFIG, null));
            }
            Map<String, String> last = new ConcurrentHashMap<>();
            List<CompletableFuture<Void>> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                Cache cache = writers.cache(CONFIG);
                threads.add(CompletableFuture.runAsync(() -> {
                    Random random = new Random(thread);
                    for (int i = 0; i < 500; i++) {
                        String key = "key-" + (thread * 1000 + random.nextInt(60)); // writers own disjoint keys
                        if (random.nextInt(10) == 0) {
                            cache.delete(key);
                            last.put(key, "");
                        } else {
                            String v = thread + ":" + i;
                            cache.put(key, bytes(v), null);
                            last.put(key, v);
                        }
                    }
                }));
            }
            CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).get();
            long tail = writers.caches().describe(CONFIG).nextOffset();
            Map<String, String> expected = new HashMap<>();
            for (int i = 0; i < 50; i++) {
                expected.put("key-" + i, "seed");
            }
            last.forEach((k, v) -> {
                if (v.isEmpty()) {
                    expected.remove(k);
                } else {
                    expected.put(k, v);
                }
            });
            for (CacheMirror m : mirrors) {
                await().atMost(Duration.ofSeconds(20)).until(() -> m.appliedOffset() == tail);
                assertThat(textMap(m.snapshot())).isEqualTo(expected);
            }
        }
    }

    @Test
    void aStalledMirrorIsEndedByTheBroker_andConvergesAfterwards_withoutSlowingTheWriter() throws Exception {
        // A tiny change history: the stalled mirror's resume offset is gone by the time it reads again,
        // so it must converge through a fresh snapshot.
        try (TestBroker broker = TestBroker.start(dir); FelixClient writer = broker.connect();
                FelixClient watcher = broker.connect(b -> b.transport(TestBroker.smallWindows(16 << 10)))) {
            writer.caches().create(CONFIG, CacheSpec.memory());
            Cache cache = writer.cache(CONFIG);
            cache.put("k0", bytes("v"), null);
            CacheMirror mirror = watcher.mirror(CONFIG, null);
            long snapshotsBefore = mirror.snapshots();
            mirror.pause();
            Map<String, String> expected = new HashMap<>();
            for (int i = 0; i < 20_000; i++) {
                String k = "k" + (i % 500);
                String v = "v" + i;
                cache.putAsync(k, bytes(v), null);
                expected.put(k, v);
            }
            long tail = cache.put("done", bytes("1"), null) + 1;
            expected.put("done", "1");
            mirror.resume();
            await().atMost(Duration.ofSeconds(30)).until(() -> mirror.appliedOffset() == tail && mirror.caughtUp());
            assertThat(textMap(mirror.snapshot())).isEqualTo(expected);
            assertThat(mirror.rewatches()).as("the broker ended the stalled watch").isPositive();
            assertThat(mirror.snapshots()).isGreaterThanOrEqualTo(snapshotsBefore);
        }
    }

    @Test
    void logCache_keepsAcknowledgedPutsAndDeletesAcrossARestart() throws Exception {
        CacheRef durable = CacheRef.parse("t1/default/durable");
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            c.caches().create(durable, CacheSpec.log("on_commit"));
            try (Cache cache = c.cache(durable)) {
                for (int i = 0; i < 100; i++) {
                    cache.put("k" + i, bytes("v" + i), null);
                }
                cache.delete("k7");
            }
        }
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect(); Cache cache = c.cache(durable)) {
            assertThat(cache.get("k42")).hasValueSatisfying(v -> assertThat(text(v)).isEqualTo("v42"));
            assertThat(cache.get("k7")).isEmpty();
            assertThat(c.caches().describe(durable).entries()).isEqualTo(99);
            CacheMirror mirror = c.mirror(durable, "k1");
            assertThat(mirror.snapshot().keySet()).allMatch(k -> k.startsWith("k1")).hasSize(11);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static Map<String, String> textMap(Map<String, byte[]> m) {
        Map<String, String> out = new HashMap<>();
        m.forEach((k, v) -> out.put(k, text(v)));
        return out;
    }
}
