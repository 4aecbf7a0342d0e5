package dev.felix.server.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.Cache;
import dev.felix.client.CacheMirror;
import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.FelixClient;
import dev.felix.server.TestBroker;
import dev.felix.server.metrics.BrokerMetrics;
import dev.felix.wire.BinaryWatchChanges;
import dev.felix.wire.Capabilities;
import dev.felix.wire.Message;
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
 * Both kinds of watcher on one cache (issue 12 item 5): a watcher that negotiated {@code BINARY_WATCH} gets its
 * changes as binary frames {@code 0x0026}, one that did not gets JSON {@code watch_change}; checked from the raw
 * bytes on the wire, beside SDK mirrors (which negotiate it). Every watcher gets every change — the same changes,
 * field for field — and each change is encoded once per encoding, not once per watcher.
 */
@Timeout(60)
class WatchEncodingTest {

    private static final CacheRef CACHE = CacheRef.parse("t1/default/mixed");
    private static final int MIRRORS = 3;
    private static final int CHANGES = 60;

    @TempDir
    Path dir;

    @Test
    void binaryAndJsonWatchersOnOneCache_eachGetEveryChange_eachEncodingOnce() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient writer = broker.connect();
                RawFelixClient raw = RawFelixClient.create(broker.server()); RawConnection c = raw.connect()) {
            writer.caches().create(CACHE, CacheSpec.memory());
            Cache cache = writer.cache(CACHE);
            cache.put("before", bytes("snapshot"), null);

            RawStream json = watch(c, new Message.Auth("t1", "any-token", Capabilities.ALL)); // no second word
            RawStream binary = watch(c, new Message.Auth("t1", "any-token", Capabilities.ALL,
                    Capabilities.BINARY_WATCH >>> Capabilities.EXT_SHIFT));
            List<FelixClient> clients = new ArrayList<>();
            try {
                List<CacheMirror> mirrors = new ArrayList<>();
                for (int i = 0; i < MIRRORS; i++) {
                    FelixClient m = broker.connect();
                    clients.add(m);
                    mirrors.add(m.mirror(CACHE, null));
                }
                for (CacheMirror m : mirrors) {
                    await().atMost(Duration.ofSeconds(10)).until(m::caughtUp);
                }
                BrokerMetrics metrics = broker.server().metrics();
                long binaryWritten = metrics.watchChangesWrittenBinary.sum();
                long jsonWritten = metrics.watchChangesWrittenJson.sum();
                long binaryEncoded = metrics.watchChangeEncodingsBinary.sum();
                long jsonEncoded = metrics.watchChangeEncodingsJson.sum();

                Map<String, String> expected = new HashMap<>(Map.of("before", "snapshot"));
                List<CompletableFuture<Long>> acks = new ArrayList<>();
                for (int i = 0; i < CHANGES; i++) {
                    String key = "k" + (i % 7);
                    if (i % 10 == 9) {
                        acks.add(cache.deleteAsync(key));
                        expected.remove(key);
                    } else {
                        String value = "v" + i + (i % 20 == 0 ? "x".repeat(3000) : "");
                        acks.add(cache.putAsync(key, bytes(value), i % 3 == 0 ? Duration.ofHours(1) : null));
                        expected.put(key, value);
                    }
                }
                long first = acks.get(0).join();
                long tail = acks.get(CHANGES - 1).join() + 1;

                // frame 0 is auth_ok, then the snapshot (one chunk: the cache is small), then one frame per change
                List<RawStream.Received> jsonFrames = json.awaitFrames(2 + CHANGES).subList(2, 2 + CHANGES);
                List<RawStream.Received> binaryFrames = binary.awaitFrames(2 + CHANGES).subList(2, 2 + CHANGES);
                List<Message.WatchChange> fromJson = new ArrayList<>();
                for (RawStream.Received r : jsonFrames) {
                    assertThat(r.flags()).as("a watcher without BINARY_WATCH gets JSON").isZero();
                    fromJson.add((Message.WatchChange) r.payload());
                }
                List<Message.WatchChange> fromBinary = new ArrayList<>();
                for (RawStream.Received r : binaryFrames) {
                    assertThat(r.flags()).as("a BINARY_WATCH watcher gets 0x0026").isEqualTo(0x0026);
                    fromBinary.addAll(((BinaryWatchChanges) r.payload()).changes());
                }
                assertThat(fromBinary).isEqualTo(fromJson);
                assertThat(fromJson).extracting(Message.WatchChange::offset)
                        .isEqualTo(java.util.stream.LongStream.range(first, tail).boxed().toList());
                assertThat(fromJson.get(0).expiresAtMs()).as("the TTL travels in both encodings").isNotNull();
                assertThat(fromJson.get(9).op()).isEqualTo(Message.WatchChange.OP_DELETE);

                for (CacheMirror m : mirrors) {
                    await().atMost(Duration.ofSeconds(10)).until(() -> m.appliedOffset() == tail);
                    Map<String, String> copy = new HashMap<>();
                    m.snapshot().forEach((k, v) -> copy.put(k, new String(v, StandardCharsets.UTF_8)));
                    assertThat(copy).isEqualTo(expected);
                }
                // the mirrors and the raw binary watcher share one binary encoding of each change; the JSON one its own
                assertThat(metrics.watchChangesWrittenBinary.sum() - binaryWritten).isEqualTo((MIRRORS + 1L) * CHANGES);
                assertThat(metrics.watchChangesWrittenJson.sum() - jsonWritten).isEqualTo(CHANGES);
                assertThat(metrics.watchChangeEncodingsBinary.sum() - binaryEncoded).isEqualTo(CHANGES);
                assertThat(metrics.watchChangeEncodingsJson.sum() - jsonEncoded).isEqualTo(CHANGES);
                assertThat(broker.scrapeMetrics()).contains("felix_watch_changes_written_total{encoding=\"binary\"}")
                        .contains("felix_watch_changes_written_total{encoding=\"json\"}");
            } finally {
                for (FelixClient m : clients) {
                    m.close();
                }
            }
        }
    }

    /** A raw watch of the whole cache, authenticated with {@code auth}; returns once its snapshot arrived. */
    private static RawStream watch(RawConnection c, Message.Auth auth) {
        RawStream s = c.open();
        s.send(auth);
        assertThat(s.frame(0).message()).isInstanceOf(Message.AuthOk.class);
        s.send(new Message.CacheWatch(CACHE.tenant(), CACHE.namespace(), CACHE.cache(), null, null, null, 1L));
        Message.WatchSnapshot snapshot = (Message.WatchSnapshot) s.frame(1).message();
        assertThat(snapshot.last()).isTrue();
        assertThat(snapshot.entries()).hasSize(1);
        return s;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
