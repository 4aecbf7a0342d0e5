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
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code watch_linger_us}: the watch streams of a cache with at least 32 watches wait until that long after they last
 * sent changes, so that quick changes leave together; a cache with fewer watches never waits. The linger here is
 * a second, so the wait shows as a lower bound on when the second of two back-to-back changes arrives (it
 * cannot arrive earlier if the stream waited), and in the broker's count of lingers.
 */
@Timeout(120)
class WatchLingerTest {

    private static final int LINGER_US = 1_000_000;

    @TempDir
    Path dir;

    @Test
    void aCacheWith32Watches_sendsAChangeThatFollowsAnotherOnlyAfterTheLinger_andEveryMirrorGetsIt() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("watch_linger_us", Integer.toString(LINGER_US)));
                FelixClient writer = broker.connect(); FelixClient watchers = broker.connect()) {
            CacheRef ref = CacheRef.parse("t1/default/linger-32");
            Cache cache = create(writer, ref);
            List<CacheMirror> mirrors = mirrors(watchers, ref, 32);

            cache.put("k", bytes("first"), null);
            awaitAll(mirrors, "first");
            long secondPut = System.nanoTime();
            cache.put("k", bytes("second"), null);
            awaitAll(mirrors, "second");
            long waitedMs = (System.nanoTime() - secondPut) / 1_000_000;

            // The first change went out at once (nothing was sent for a while); the second came right after it, so
            // each stream waited until the linger had passed since it sent the first. Less the time the first put's
            // acknowledgement took to reach the writer, which is far below the margin kept here.
            assertThat(waitedMs).as("ms until every mirror had the second change").isGreaterThanOrEqualTo(500);
            assertThat(broker.server().metrics().watchLingers.sum()).as("watch drains that lingered")
                    .isGreaterThanOrEqualTo(32);
        }
    }

    @Test
    void aLingeringStreamSendsOnceHalfItsQueueIsFull_soAWatcherWithASmallQueueIsNeverEnded() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("watch_linger_us", Integer.toString(LINGER_US)));
                FelixClient writer = broker.connect(); FelixClient watchers = broker.connect()) {
            CacheRef ref = CacheRef.parse("t1/default/linger-small-queue");
            Cache cache = create(writer, ref);
            List<CacheMirror> mirrors = mirrors(watchers, ref, 31);
            CacheMirror small = watchers.mirror(ref, null, 8); // the 32nd watch, with room for 8 changes
            await().atMost(Duration.ofSeconds(20)).until(small::caughtUp);
            mirrors.add(small);

            // Twenty changes inside one linger: a stream that waited the whole second would hold them all.
            for (int i = 0; i < 20; i++) {
                cache.put("k", bytes("v" + i), null);
            }
            awaitAll(mirrors, "v19");
            assertThat(small.rewatches()).as("re-watches of the mirror with an 8-change queue").isZero();
            assertThat(broker.server().metrics().watchLingers.sum()).as("watch drains that lingered").isPositive();
        }
    }

    @Test
    void aCacheWith31Watches_neverLingers() throws Exception {
        assertNoLinger(Integer.toString(LINGER_US), 31);
    }

    @Test
    void zeroTurnsLingeringOff_evenWithManyWatches() throws Exception {
        assertNoLinger("0", 40);
    }

    /** Twenty back-to-back changes reach {@code watches} mirrors with no drain lingering. */
    private void assertNoLinger(String lingerUs, int watches) throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("watch_linger_us", lingerUs));
                FelixClient writer = broker.connect(); FelixClient watchers = broker.connect()) {
            CacheRef ref = CacheRef.parse("t1/default/no-linger");
            Cache cache = create(writer, ref);
            List<CacheMirror> mirrors = mirrors(watchers, ref, watches);

            for (int i = 0; i < 20; i++) {
                cache.put("k", bytes("v" + i), null);
            }
            awaitAll(mirrors, "v19");
            assertThat(broker.server().metrics().watchLingers.sum()).as("watch drains that lingered").isZero();
        }
    }

    private static Cache create(FelixClient client, CacheRef ref) {
        client.caches().create(ref, CacheSpec.memory());
        return client.cache(ref);
    }

    private static List<CacheMirror> mirrors(FelixClient client, CacheRef ref, int count) {
        List<CacheMirror> mirrors = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            mirrors.add(client.mirror(ref, null));
        }
        for (CacheMirror m : mirrors) {
            await().atMost(Duration.ofSeconds(20)).until(m::caughtUp);
        }
        return mirrors;
    }

    private static void awaitAll(List<CacheMirror> mirrors, String value) {
        byte[] expected = bytes(value);
        for (CacheMirror m : mirrors) {
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(1))
                    .until(() -> m.get("k").map(v -> Arrays.equals(v, expected)).orElse(false));
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
