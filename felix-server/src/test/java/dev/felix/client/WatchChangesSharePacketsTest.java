package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.server.TestBroker;
import io.netty.handler.codec.quic.QuicConnectionStats;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Changes that reach a watch stream together leave together: the broker copies one drain's change frames into one
 * buffer, because a QUIC stream sends at least one packet per buffer written to it. A mirror that receives a burst of
 * pipelined puts therefore gets several changes per packet (and sends one transport acknowledgement per packet),
 * where it got one packet per change. Every change still arrives, in order: the mirror ends with every key's last
 * value.
 */
@Timeout(120)
class WatchChangesSharePacketsTest {

    private static final CacheRef CACHE = CacheRef.parse("t1/default/watch-packets");
    private static final int PUTS = 2_000;
    private static final int KEYS = 100;

    @TempDir
    Path dir;

    @Test
    void aBurstOfPipelinedPuts_reachesAMirrorInFewerPacketsThanChanges_withEveryLastValue() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient writer = broker.connect();
                FelixClient watcher = broker.connect()) {
            writer.caches().create(CACHE, CacheSpec.memory());
            Cache cache = writer.cache(CACHE);
            cache.put("warm", new byte[] {1}, null);
            CacheMirror mirror = watcher.mirror(CACHE, null);
            await().atMost(Duration.ofSeconds(10)).until(() -> mirror.caughtUp() && mirror.get("warm").isPresent());
            long appliedBefore = mirror.changesApplied();
            QuicConnectionStats before = watcher.connection().collectStats().get(10, TimeUnit.SECONDS);

            List<CompletableFuture<Long>> acks = new ArrayList<>(PUTS);
            for (int i = 0; i < PUTS; i++) {
                acks.add(cache.putAsync("k" + (i % KEYS), value(i), null));
            }
            CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> mirror.changesApplied() - appliedBefore == PUTS);
            QuicConnectionStats after = watcher.connection().collectStats().get(10, TimeUnit.SECONDS);

            for (int k = 0; k < KEYS; k++) {
                int last = PUTS - KEYS + k; // the last put of key k
                assertThat(mirror.get("k" + k)).as("key k%d", k).hasValueSatisfying(
                        v -> assertThat(new String(v, StandardCharsets.UTF_8)).isEqualTo("v" + last));
            }
            long packets = after.recv() - before.recv();
            // Pipelined puts arrive and are applied several at a time, so each drain holds several changes. Written as a
            // buffer per change they took 1,292 packets on the machine this was written on; as one buffer per drain, 66-67.
            assertThat(packets).as("packets the mirror received for %d changes", PUTS).isLessThan(PUTS / 5);
        }
    }

    private static byte[] value(int i) {
        return ("v" + i).getBytes(StandardCharsets.UTF_8);
    }
}
