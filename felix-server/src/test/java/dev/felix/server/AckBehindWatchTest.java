package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.Cache;
import dev.felix.client.CacheMirror;
import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.FelixClient;
import dev.felix.server.metrics.BrokerMetrics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A put's acknowledgement is not queued behind watch delivery (issue 12 item 4): while many watchers receive a
 * big backlog on the broker's one event loop, the writer's acks wait for at most one turn of each watch stream
 * (its per-turn budget), not for every watcher's whole backlog. Measured in frames, not in time: the broker
 * records how many watch frames it wrote while each flush of replies waited
 * ({@code felix_reply_wait_watch_frames}).
 */
@Timeout(120)
class AckBehindWatchTest {

    private static final CacheRef CACHE = CacheRef.parse("t1/default/backlog");
    private static final int WATCHERS = 16;
    private static final int PUTS = 4_000;

    @TempDir
    Path dir;

    @Test
    void putAcksWaitForAtMostOneTurnOfEachWatchStream_whileSixteenWatchersTakeABacklog() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient writer = broker.connect();
                FelixClient watchers = broker.connect()) {
            writer.caches().create(CACHE, CacheSpec.memory());
            Cache cache = writer.cache(CACHE);
            List<CacheMirror> mirrors = new ArrayList<>();
            for (int i = 0; i < WATCHERS; i++) {
                mirrors.add(watchers.mirror(CACHE, null));
            }
            for (CacheMirror m : mirrors) {
                await().atMost(Duration.ofSeconds(10)).until(m::caughtUp);
            }
            BrokerMetrics metrics = broker.server().metrics();
            long yields = metrics.watchDrainYields.sum();
            long framesBefore = metrics.watchFramesWritten();
            long replies = metrics.replyWaitWatchFrames.count();

            byte[] value = new byte[256];
            List<CompletableFuture<Long>> acks = new ArrayList<>(PUTS);
            for (int i = 0; i < PUTS; i++) {
                acks.add(cache.putAsync("k" + (i % 500), value, null));
            }
            long tail = acks.get(PUTS - 1).join() + 1;
            acks.forEach(CompletableFuture::join);
            for (CacheMirror m : mirrors) {
                await().atMost(Duration.ofSeconds(60)).until(() -> m.appliedOffset() == tail);
            }

            // The watchers did get a backlog: every change to each, with drains cut short at their budget.
            assertThat(metrics.watchFramesWritten() - framesBefore).isGreaterThanOrEqualTo((long) WATCHERS * PUTS);
            assertThat(metrics.watchDrainYields.sum() - yields).as("drains that stopped at their budget").isPositive();
            assertThat(metrics.replyWaitWatchFrames.count() - replies).isPositive();
            // Ahead of a reply that became ready are at most one queued turn per watch stream and the rest of the
            // turn running then, 32 frames each: (16 + 1) x 32 = 544; the bound leaves one turn of slack. Without
            // the budget a reply waited for whole backlogs: over 5,000 frames here.
            double bound = (WATCHERS + 2.0) * 32; // WatchWriter.FRAMES_PER_TURN
            assertThat(metrics.replyWaitWatchFrames.max())
                    .as("most watch frames written while a put's ack waited").isLessThanOrEqualTo(bound);
        }
    }
}
