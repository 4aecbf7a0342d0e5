package dev.felix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.client.Cache;
import dev.felix.client.CacheMirror;
import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.testing.BrokerProcess;
import dev.felix.transport.ClientTrust;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log-backed cache (fsync {@code on_commit}) killed with SIGKILL at random moments holds every
 * acknowledged put and delete after a restart. Each writer owns its keys and has at most one operation in
 * flight per key, so a key's state after the crash must be its last acknowledged operation, or the one
 * that was in flight when the broker died.
 */
@Timeout(600)
class CacheCrashTest {

    static final int ROUNDS = 8;
    static final int WRITERS = 3;
    static final CacheRef CACHE = CacheRef.parse("t1/crash/state");

    /** What a key may hold after a crash: its last acknowledged value and the one in flight ("" = deleted). */
    record Allowed(String acknowledged, String inFlight) {
    }

    @TempDir
    Path dir;

    @Test
    void kill9_logCacheKeepsEveryAcknowledgedPutAndDelete() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        Map<String, Allowed> allowed = new ConcurrentHashMap<>();
        Random random = new Random(42);
        for (int round = 0; round <= ROUNDS; round++) {
            BrokerProcess broker = BrokerProcess.start(data, dir, "cache-round-" + round, List.of());
            try (FelixClient client = connect(data, broker)) {
                if (round == 0) {
                    client.caches().create(CACHE, CacheSpec.log("on_commit"));
                } else {
                    verify(client, allowed);
                }
                if (round == ROUNDS) {
                    broker.close();
                    break;
                }
                AtomicBoolean stop = new AtomicBoolean();
                List<CompletableFuture<Void>> writers = new ArrayList<>();
                for (int w = 0; w < WRITERS; w++) {
                    Cache cache = client.cache(CACHE);
                    int writer = w;
                    int r = round;
                    writers.add(CompletableFuture.runAsync(() -> write(cache, writer, r, stop, allowed)));
                }
                Thread.sleep(300 + random.nextInt(1200));
                broker.kill();
                stop.set(true);
            }
        }
        assertThat(allowed).hasSizeGreaterThan(10);
    }

    /** Puts and deletes on this writer's keys, one operation in flight per key at a time. */
    private static void write(Cache cache, int writer, int round, AtomicBoolean stop, Map<String, Allowed> allowed) {
        Random random = new Random(round * 31L + writer);
        for (int i = 0; !stop.get(); i++) {
            String key = "w" + writer + "-k" + random.nextInt(40);
            boolean delete = random.nextInt(5) == 0;
            String value = delete ? "" : "r" + round + "-" + i;
            Allowed before = allowed.getOrDefault(key, new Allowed("", ""));
            allowed.put(key, new Allowed(before.acknowledged(), value));
            try {
                if (delete) {
                    cache.delete(key);
                } else {
                    cache.put(key, value.getBytes(StandardCharsets.UTF_8), null);
                }
                allowed.put(key, new Allowed(value, value));
            } catch (RuntimeException e) {
                return; // the broker is gone; this key's in-flight operation may or may not have landed
            }
        }
    }

    private static void verify(FelixClient client, Map<String, Allowed> allowed) {
        CacheMirror mirror = client.mirror(CACHE, null);
        Map<String, byte[]> state = mirror.snapshot();
        mirror.close();
        for (Map.Entry<String, Allowed> e : allowed.entrySet()) {
            byte[] v = state.get(e.getKey());
            String actual = v == null ? "" : new String(v, StandardCharsets.UTF_8);
            assertThat(actual).as("key %s after restart", e.getKey())
                    .isIn(e.getValue().acknowledged(), e.getValue().inFlight());
            // What survived is now the acknowledged state.
            e.setValue(new Allowed(actual, actual));
        }
        for (String key : state.keySet()) {
            assertThat(allowed).as("no key appears that was never written").containsKey(key);
        }
    }

    private static FelixClient connect(Path data, BrokerProcess broker) throws Exception {
        return FelixClient.connect(ClientConfig.builder(ClientTrust.certificates(data.resolve("tls/cert.pem")))
                .broker(broker.quicAddress())
                .requestTimeout(Duration.ofSeconds(15)) // a cold broker's first log-cache load takes a while
                .build());
    }
}
