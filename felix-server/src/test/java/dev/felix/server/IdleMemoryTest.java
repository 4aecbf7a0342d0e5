package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.FelixClient;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.transport.DirectBuffers;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Memory when idle: a broker loaded by clients that then all leave runs its idle trim once no client has been
 * connected for the trim delay, and {@code felix_netty_direct_memory_bytes} shows Netty's direct memory. Prints
 * direct memory and RSS at start, under load, just before and after the trim. What the trim gives back depends on
 * what the load left in flight: {@link LargeBufferRecycleTest} and {@code ChurnLeakSoakTest} check that it frees the
 * large-buffer chunks the adaptive allocator kept; see {@code docs/operations.md}, "Memory when idle".
 */
@Timeout(120)
class IdleMemoryTest {

    @TempDir
    Path dir;

    @Test
    void afterTheLastClientLeaves_theIdleTrimRuns_andDirectMemoryIsShown() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of())) {
            broker.server().idleMemory().trimAfter(Duration.ofSeconds(1));
            long start = direct();
            long rssStart = rss();
            List<FelixClient> clients = new ArrayList<>();
            List<Subscription> subs = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                FelixClient c = broker.connect();
                clients.add(c);
                subs.add(c.subscribe(SubscribeOptions.of(StreamRef.parse("t1/default/mem-" + (i % 4)))));
            }
            byte[] payload = new byte[16 << 10];
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < 4; i++) {
                    Publisher p = clients.get(i).publisher(StreamRef.parse("t1/default/mem-" + i));
                    List<byte[]> batch = new ArrayList<>();
                    for (int j = 0; j < 64; j++) {
                        batch.add(payload);
                    }
                    for (int k = 0; k < 8; k++) {
                        p.publishBatch(batch);
                    }
                }
            }
            long loaded = direct();
            long rssLoaded = rss();
            // Each 1 MiB batch was encoded by the SDK, and gathered by the broker, into a buffer over the pool's limit.
            long largeCached = DirectBuffers.largeBuffersCachedBytes();
            clients.forEach(FelixClient::close);
            long trimsBefore = broker.server().idleMemory().trims();
            await().atMost(Duration.ofSeconds(30)).until(() -> broker.server().idleMemory().trims() > trimsBefore);
            long after = direct();
            long rssAfter = rss();
            long[] trim = broker.server().idleMemory().lastTrim();
            System.out.printf("allocator %s: netty direct memory at start %d KiB, loaded %d KiB, idle before trim %d"
                    + " KiB, after trim %d KiB; RSS start %d MiB, loaded %d MiB, after trim %d MiB%n",
                    ByteBufAllocator.DEFAULT.getClass().getSimpleName(), start >> 10, loaded >> 10, trim[0] >> 10,
                    trim[1] >> 10, rssStart >> 20, rssLoaded >> 20, rssAfter >> 20);
            assertThat(loaded).as("the load used pooled direct memory").isGreaterThan(start);
            assertThat(trim[0]).as("measured just before the trim").isNotNegative();
            assertThat(after).isLessThanOrEqualTo(loaded);
            assertThat(largeCached).as("large buffers' memory kept for reuse under load").isPositive();
            assertThat(DirectBuffers.largeBuffersCachedBytes()).as("freed by the trim").isZero();
            assertThat(broker.scrapeMetrics()).containsPattern("(?m)^felix_large_buffer_cache_bytes 0\\.0$")
                    .containsPattern("(?m)^felix_stream_writes_stranded_total \\S+$");
            assertThat(broker.scrapeMetrics()).containsPattern("(?m)^felix_netty_direct_memory_bytes \\S+$");
        }
    }

    private static long direct() {
        return ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric().usedDirectMemory();
    }

    private static long rss() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) << 10;
            }
        }
        return -1;
    }
}
