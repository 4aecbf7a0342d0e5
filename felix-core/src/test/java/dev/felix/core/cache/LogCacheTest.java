package dev.felix.core.cache;

import static dev.felix.core.cache.CacheFixture.barrier;
import static dev.felix.core.cache.CacheFixture.bytes;
import static dev.felix.core.cache.CacheFixture.delete;
import static dev.felix.core.cache.CacheFixture.get;
import static dev.felix.core.cache.CacheFixture.put;
import static dev.felix.core.cache.CacheWatchTest.contents;
import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;
import dev.felix.core.StreamConfig;
import dev.felix.core.testing.Await;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Log backing: restart and crash keep every acknowledged put and delete, TTLs survive restart, snapshots
 * compact the log, a corrupt snapshot falls back, a mirror resumed after compaction converges.
 */
class LogCacheTest {

    @TempDir
    Path tmp;
    CacheFixture fx;

    @BeforeEach
    void setUp() {
        fx = new CacheFixture(tmp);
    }

    @AfterEach
    void tearDown() {
        fx.close();
    }

    /** Small segments so compaction has whole segments to drop; snapshots only when asked. */
    private static CacheConfig small(StreamConfig.Fsync fsync) {
        return CacheConfig.log(fsync).withSegmentBytes(CacheConfig.MIN_SEGMENT_BYTES)
                .withSnapshotEveryChanges(Long.MAX_VALUE).withChangeRing(16, 1 << 20);
    }

    /**
     * Puts and deletes a deterministic mix of exactly {@code n} changes (every delete removes the key put just
     * before it); returns what the cache must hold afterwards.
     */
    private static Map<String, String> workload(Cache c, int from, int n) {
        Map<String, String> expected = new HashMap<>();
        List<CompletableFuture<Long>> acks = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            String key = "key-" + (i % 97);
            if (i % 5 == 4) {
                String previous = "key-" + ((i - 1) % 97);
                acks.add(c.delete(previous));
                expected.put(previous, null);
            } else {
                String value = "value-" + i + "-" + "x".repeat(i % 40);
                acks.add(c.put(key, bytes(value), null));
                expected.put(key, value);
            }
        }
        for (CompletableFuture<Long> a : acks) {
            assertThat(Await.get(a)).as("every one acknowledged, each a change").isNotEqualTo(Cache.NO_CHANGE);
        }
        return expected;
    }

    private static void assertHolds(Cache c, Map<String, String> expected) {
        for (Map.Entry<String, String> e : expected.entrySet()) {
            assertThat(get(c, e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
        }
    }

    private static Map<String, String> merged(Map<String, String> base, Map<String, String> more) {
        Map<String, String> out = new HashMap<>(base);
        out.putAll(more);
        return out;
    }

    private List<Path> snapshots(Cache c) throws IOException {
        try (Stream<Path> s = Files.list(c.directory())) {
            return s.filter(p -> p.getFileName().toString().endsWith(SnapshotFile.SUFFIX)).sorted().toList();
        }
    }

    @ParameterizedTest
    @EnumSource(value = StreamConfig.Fsync.class)
    void restart_keepsEveryAcknowledgedPutAndDelete_andContinuesTheOffsets(StreamConfig.Fsync fsync) {
        CacheConfig config = small(fsync);
        Cache c = fx.cache("c", config);
        Map<String, String> expected = workload(c, 0, 400);
        CacheInfo before = barrier(c);
        Await.get(c.close());

        Cache reopened = fx.cache("c", config);
        assertThat(reopened.info().loaded()).as("loaded lazily, on first use").isFalse();
        CacheInfo after = barrier(reopened);
        assertThat(after.nextOffset()).isEqualTo(before.nextOffset()).isEqualTo(400);
        assertThat(after.entries()).isEqualTo(before.entries());
        assertThat(after.incarnation()).as("a clean close keeps the incarnation").isEqualTo(before.incarnation());
        assertHolds(reopened, expected);
        assertThat(put(reopened, "new", "v")).isEqualTo(400);
    }

    @ParameterizedTest
    @EnumSource(value = StreamConfig.Fsync.class)
    void crash_withoutClose_keepsEveryAcknowledgedChange(StreamConfig.Fsync fsync) {
        CacheConfig config = small(fsync);
        Cache c = fx.cache("c", config);
        Map<String, String> expected = workload(c, 0, 300);
        Await.get(c.compact());
        expected = merged(expected, workload(c, 300, 200));
        CacheInfo before = barrier(c);
        fx.abandon(c); // no close: the meta still says "running", nothing is flushed on purpose

        Cache reopened = fx.cache("c", config);
        CacheInfo after = barrier(reopened);
        assertThat(after.nextOffset()).isEqualTo(before.nextOffset());
        assertHolds(reopened, expected);
        if (fsync == StreamConfig.Fsync.ON_COMMIT) {
            // Watchers only ever saw durable changes: their offsets stay valid.
            assertThat(after.incarnation()).isEqualTo(before.incarnation());
            assertThat(Await.get(reopened.watch(null, 450L, before.incarnation(), () -> { })).startOffset())
                    .isEqualTo(450);
        } else {
            // Visible changes may have been lost with the machine: old offsets must not be trusted.
            assertThat(after.incarnation()).isNotEqualTo(before.incarnation());
            FelixException e = Await.failure(reopened.watch(null, 450L, before.incarnation(), () -> { }));
            assertThat(e.code()).isEqualTo(ErrorCode.CURSOR_TOO_OLD);
        }
    }

    @Test
    void onCommit_acknowledgesAndShowsChangesOnlyOnceDurable() {
        Cache c = fx.cache("c", small(StreamConfig.Fsync.ON_COMMIT));
        barrier(c);
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        CacheWatch w = Await.get(c.watch(null, null, () -> { }));
        List<CompletableFuture<Long>> acks = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            acks.add(c.put("k" + (i % 10), bytes("v" + i), null).thenApply(off -> {
                if (c.durableOffset() <= off) {
                    violations.add("ack of " + off + " before durable " + c.durableOffset());
                }
                return off;
            }));
        }
        acks.forEach(Await::get);
        Mirror m = new Mirror(c, null).attach(w);
        m.catchUp(200);
        assertThat(c.durableOffset()).isGreaterThanOrEqualTo(200);
        assertThat(violations).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(value = StreamConfig.Fsync.class)
    void ttl_survivesRestart_asAbsoluteExpiryTimes(StreamConfig.Fsync fsync) {
        CacheConfig config = small(fsync);
        Cache c = fx.cache("c", config);
        put(c, "short", "s", Duration.ofSeconds(10));
        put(c, "long", "l", Duration.ofSeconds(100));
        Await.get(c.compact()); // one in the snapshot
        put(c, "short2", "s", Duration.ofSeconds(10)); // one in the log tail
        Await.get(c.close());

        fx.clock.advance(Duration.ofSeconds(50));
        Cache reopened = fx.cache("c", config);
        Mirror m = new Mirror(reopened, null).start();
        assertThat(get(reopened, "short")).isNull();
        assertThat(get(reopened, "short2")).isNull();
        assertThat(get(reopened, "long")).isEqualTo("l");
        Await.get(reopened.sweep());
        m.catchUp(barrier(reopened).nextOffset());
        assertThat(m.changes.values()).extracting(Change::op, Change::key).containsExactlyInAnyOrder(
                org.assertj.core.groups.Tuple.tuple(Change.Op.EXPIRE, "short"),
                org.assertj.core.groups.Tuple.tuple(Change.Op.EXPIRE, "short2"));
        assertThat(m.changes.firstKey()).isEqualTo(3); // the expiries continue the offsets
        assertThat(m.entries).containsOnlyKeys("long");
        fx.clock.advance(Duration.ofSeconds(50));
        assertThat(get(reopened, "long")).isNull();
    }

    @Test
    void snapshots_compactTheLog_andRestartRestoresFromSnapshotPlusTail() throws IOException {
        CacheConfig config = small(StreamConfig.Fsync.PERIODIC);
        Cache c = fx.cache("c", config);
        Map<String, String> expected = workload(c, 0, 300);
        int segmentsBefore = c.logSegments();
        assertThat(segmentsBefore).as("small segments: the log rolled").isGreaterThan(3);

        long first = Await.get(c.compact());
        assertThat(first).isEqualTo(300);
        assertThat(barrier(c).oldestOffset()).as("one snapshot: the log is kept whole as its fallback").isZero();
        assertThat(snapshots(c)).extracting(p -> p.getFileName().toString())
                .containsExactly(SnapshotFile.fileName(300));

        expected = merged(expected, workload(c, 300, 300));
        long second = Await.get(c.compact());
        assertThat(second).isEqualTo(600);
        long oldest = barrier(c).oldestOffset();
        assertThat(oldest).as("segments wholly below the older snapshot are gone").isPositive()
                .isLessThanOrEqualTo(first);
        assertThat(c.logSegments()).isLessThan(segmentsBefore * 2);

        expected = merged(expected, workload(c, 600, 300));
        assertThat(Await.get(c.compact())).isEqualTo(900);
        assertThat(snapshots(c)).extracting(p -> p.getFileName().toString())
                .containsExactly(SnapshotFile.fileName(600), SnapshotFile.fileName(900));
        long oldestAfter = barrier(c).oldestOffset();
        assertThat(oldestAfter).isGreaterThan(oldest).isLessThanOrEqualTo(600);
        assertThat(Await.get(c.compact())).as("nothing new: the last snapshot stands").isEqualTo(900);

        expected = merged(expected, workload(c, 900, 50)); // a tail after the newest snapshot
        Await.get(c.close());
        Cache reopened = fx.cache("c", config);
        CacheInfo info = barrier(reopened);
        assertThat(info.nextOffset()).isEqualTo(950);
        assertThat(info.oldestOffset()).isEqualTo(oldestAfter);
        assertHolds(reopened, expected);
        assertThat(reopened.metrics().snapshots.sum()).isZero();
    }

    @Test
    void automaticSnapshots_everyNChanges() {
        CacheConfig config = small(StreamConfig.Fsync.NONE).withSnapshotEveryChanges(50);
        Cache c = fx.cache("c", config);
        for (int round = 1; round <= 4; round++) {
            workload(c, (round - 1) * 100, 100);
            int expected = round;
            Await.until(expected + " snapshot(s)", () -> c.metrics().snapshots.sum() >= expected);
        }
        Await.until("the log was trimmed", () -> barrier(c).oldestOffset() > 0);
        assertThat(c.metrics().snapshotFailures.sum()).isZero();
    }

    @Test
    void corruptNewestSnapshot_fallsBackToTheOlderOne_plusALongerReplay() throws IOException {
        CacheConfig config = small(StreamConfig.Fsync.PERIODIC);
        Cache c = fx.cache("c", config);
        Map<String, String> expected = workload(c, 0, 300);
        Await.get(c.compact());
        expected = merged(expected, workload(c, 300, 300));
        Await.get(c.compact());
        expected = merged(expected, workload(c, 600, 30));
        Path dir = c.directory();
        Await.get(c.close());
        Path newest = dir.resolve(SnapshotFile.fileName(600));
        flipByte(newest, Files.size(newest) / 2);

        Cache reopened = fx.cache("c", config);
        assertThat(barrier(reopened).nextOffset()).isEqualTo(630);
        assertHolds(reopened, expected);
        assertThat(dir.resolve(SnapshotFile.fileName(600) + CacheLog.CORRUPT_SUFFIX)).exists();
        assertThat(newest).doesNotExist();
    }

    @Test
    void everySnapshotTheLogDependsOnCorrupt_refusesToLoad_withCorruption() throws IOException {
        CacheConfig config = small(StreamConfig.Fsync.PERIODIC);
        Cache c = fx.cache("c", config);
        workload(c, 0, 300);
        Await.get(c.compact());
        workload(c, 300, 300);
        Await.get(c.compact());
        Path dir = c.directory();
        Await.get(c.close());
        flipByte(dir.resolve(SnapshotFile.fileName(300)), 40);
        flipByte(dir.resolve(SnapshotFile.fileName(600)), 40);

        Cache reopened = fx.cache("c", config);
        FelixException e = Await.failure(reopened.load());
        assertThat(e.code()).isEqualTo(ErrorCode.CORRUPTION);
        assertThat(e.getMessage()).contains("no snapshot it depends on is usable");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> reopened.get("key-1"))
                .isInstanceOfSatisfying(FelixException.class, f -> assertThat(f.code()).isEqualTo(ErrorCode.CORRUPTION));
        assertThat(Await.failure(reopened.put("k", bytes("v"), null)).code()).isEqualTo(ErrorCode.CORRUPTION);
    }

    @Test
    void corruptOnlySnapshot_withTheWholeLog_replaysFromOffsetZero() throws IOException {
        CacheConfig config = small(StreamConfig.Fsync.PERIODIC);
        Cache c = fx.cache("c", config);
        Map<String, String> expected = workload(c, 0, 200);
        Await.get(c.compact());
        expected = merged(expected, workload(c, 200, 20));
        Path dir = c.directory();
        Await.get(c.close());
        flipByte(dir.resolve(SnapshotFile.fileName(200)), 10);

        Cache reopened = fx.cache("c", config);
        assertThat(barrier(reopened).nextOffset()).isEqualTo(220);
        assertHolds(reopened, expected);
    }

    @Test
    void watchFromTheLog_belowTheRing_deliversExactlyTheChanges() {
        Cache c = fx.cache("c", small(StreamConfig.Fsync.NONE));
        workload(c, 0, 120);
        assertThat(barrier(c).oldestOffset()).isZero(); // retained in the log, though the ring holds 16
        Mirror m = new Mirror(c, null).attach(Await.get(c.watch(null, 7L, () -> { })));
        m.catchUp(120);
        assertThat(m.changes.firstKey()).isEqualTo(7);
        assertThat(m.changes).hasSize(113);
        Mirror prefixed = new Mirror(c, "key-1").attach(Await.get(c.watch("key-1", 0L, () -> { })));
        prefixed.catchUp(120);
        assertThat(prefixed.changes.values()).allMatch(ch -> ch.key().startsWith("key-1"))
                .hasSize((int) m.changes.values().stream().filter(ch -> ch.key().startsWith("key-1")).count()
                        + (int) java.util.stream.LongStream.range(0, 7).filter(o -> ("key-" + (o % 97))
                        .startsWith("key-1")).count());
    }

    @Test
    void mirrorResumedAfterCompaction_getsCursorTooOld_andConvergesThroughAFreshSnapshot() {
        Cache c = fx.cache("c", small(StreamConfig.Fsync.ON_COMMIT));
        workload(c, 0, 100);
        Mirror m = new Mirror(c, null).start();
        m.catchUp(100);
        m.watch.close(); // the mirror stalls (disconnected) at offset 100

        workload(c, 100, 300);
        Await.get(c.compact());
        workload(c, 400, 300);
        Await.get(c.compact());
        long oldest = barrier(c).oldestOffset();
        assertThat(oldest).isGreaterThan(100);

        m.resume(100);
        assertThat(m.tooOld).isEqualTo(1);
        m.catchUp(700);
        assertThat(m.snapshots).isEqualTo(2);
        assertThat(m.entries).isEqualTo(contents(c, null));
        workload(c, 700, 50); // and it keeps up live afterwards
        m.catchUp(750);
        assertThat(m.entries).isEqualTo(contents(c, null));
    }

    @ParameterizedTest
    @EnumSource(value = StreamConfig.Fsync.class)
    void storageFailure_failsWhatWaits_endsWatchesResumably_andTheNextUseReloads(StreamConfig.Fsync fsync) {
        Cache c = fx.cache("c", small(fsync));
        Map<String, String> expected = workload(c, 0, 50);
        Mirror m = new Mirror(c, null).start();
        m.catchUp(50);
        long incarnation = c.incarnation();

        c.storage().segmentedLog().close(); // the log fails under the cache: appends now throw
        FelixException e = Await.failure(c.put("doomed", bytes("x"), null));
        assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
        Await.until("the cache unloaded itself", () -> !c.info().loaded());
        WatchItem[] last = new WatchItem[1];
        Await.until("the watch was ended", () -> {
            for (WatchItem i; (i = m.watch.poll()) != null; ) {
                last[0] = i;
            }
            return last[0] instanceof WatchEnded;
        });
        assertThat(last[0]).isInstanceOfSatisfying(WatchEnded.class, end -> {
            assertThat(end.resumeFrom()).isEqualTo(50);
            assertThat(end.reason().code()).isEqualTo(ErrorCode.UNAVAILABLE);
        });

        assertThat(put(c, "after", "y")).as("reloaded from disk; the failed put never happened").isEqualTo(50);
        assertThat(c.incarnation()).as("same process, same files: offsets stay valid").isEqualTo(incarnation);
        assertHolds(c, expected);
        assertThat(get(c, "doomed")).isNull();
        m.resume(50);
        m.catchUp(51);
        assertThat(m.tooOld).isZero();
        assertThat(m.entries).isEqualTo(contents(c, null));
    }

    @Test
    void aLogCacheOpensNothingUntilFirstUse() {
        Cache c = fx.cache("c", small(StreamConfig.Fsync.PERIODIC));
        assertThat(c.info().loaded()).isFalse();
        assertThat(c.directory()).doesNotExist();
        assertThat(c.incarnation()).isZero();
        put(c, "a", "1");
        assertThat(c.info().loaded()).isTrue();
        assertThat(c.directory().resolve(CacheMeta.FILE)).exists();
        assertThat(c.incarnation()).isPositive();
    }

    private static void flipByte(Path file, long position) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(position);
            int b = f.read();
            f.seek(position);
            f.write(b ^ 0x5A);
        }
    }
}
