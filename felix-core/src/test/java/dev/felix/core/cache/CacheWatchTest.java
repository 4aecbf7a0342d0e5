package dev.felix.core.cache;

import static dev.felix.core.cache.CacheFixture.barrier;
import static dev.felix.core.cache.CacheFixture.delete;
import static dev.felix.core.cache.CacheFixture.put;
import static dev.felix.core.cache.CacheFixture.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;
import dev.felix.core.QueueLimits;
import dev.felix.core.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Watch: snapshot + changes, resume, cursor errors, overflow and its resume, prefixes, end on close. */
class CacheWatchTest {

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

    private Cache cache(Backing b, CacheConfig config) {
        return fx.cache("c", b.apply(config));
    }

    private static final WatchListener QUIET = () -> { };

    /** Everything queued on {@code w} right now. */
    private static List<WatchItem> drain(CacheWatch w) {
        List<WatchItem> out = new ArrayList<>();
        WatchItem i;
        while ((i = w.poll()) != null) {
            out.add(i);
        }
        return out;
    }

    /** Polls until {@code n} items arrived (waiting for them). */
    private static List<WatchItem> take(CacheWatch w, int n) {
        List<WatchItem> out = new ArrayList<>();
        Await.until(n + " items", () -> {
            WatchItem i;
            while (out.size() < n && (i = w.poll()) != null) {
                out.add(i);
            }
            return out.size() == n;
        });
        return out;
    }

    private static FelixException watchFailure(Cache c, String prefix, Long from, Long incarnation) {
        return Await.failure(c.watch(prefix, from, incarnation, QUIET));
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void snapshotAtN_thenEveryChangeFromN(Backing b) {
        Cache c = cache(b, CacheConfig.memory());
        put(c, "a", "1");
        put(c, "b", "2");
        put(c, "a", "3");
        AtomicInteger ready = new AtomicInteger();
        CacheWatch w = Await.get(c.watch(null, null, ready::incrementAndGet));
        assertThat(w.startOffset()).isEqualTo(3);
        assertThat(w.startsWithSnapshot()).isTrue();
        Await.until("told at once: the snapshot is ready", () -> ready.get() == 1);
        List<WatchItem> first = drain(w);
        assertThat(first).hasSize(1);
        SnapshotChunk chunk = (SnapshotChunk) first.get(0);
        assertThat(chunk.offset()).isEqualTo(3);
        assertThat(chunk.last()).isTrue();
        Map<String, String> snap = new HashMap<>();
        chunk.entries().forEach(e -> snap.put(e.key(), text(e.value())));
        assertThat(snap).containsExactlyInAnyOrderEntriesOf(Map.of("a", "3", "b", "2"));

        put(c, "c", "4");
        delete(c, "a");
        barrier(c); // a change is acknowledged before the watch is told of it: both queued before polling
        List<WatchItem> changes = take(w, 2);
        assertThat(changes).extracting(i -> ((Change) i).offset()).containsExactly(3L, 4L);
        assertThat(((Change) changes.get(0)).entry()).satisfies(e -> {
            assertThat(e.key()).isEqualTo("c");
            assertThat(text(e.value())).isEqualTo("4");
        });
        assertThat(((Change) changes.get(1)).op()).isEqualTo(Change.Op.DELETE);
        assertThat(((Change) changes.get(1)).value()).isNull();
        assertThat(ready.get()).isEqualTo(2);
    }

    @Test
    void largeSnapshot_comesInChunksWithOneOffset_eachEntryOnce_lastFlagOnlyAtTheEnd() {
        Cache c = fx.cache("c", CacheConfig.memory());
        int n = WatcherQueue.CHUNK_ENTRIES * 2 + 5;
        for (int i = 0; i < n; i++) {
            c.put("k" + i, CacheFixture.bytes("v" + i), null);
        }
        barrier(c);
        CacheWatch w = Await.get(c.watch(null, null, QUIET));
        List<WatchItem> items = drain(w);
        assertThat(items).hasSize(3).allMatch(i -> ((SnapshotChunk) i).offset() == n);
        assertThat(items).extracting(i -> ((SnapshotChunk) i).last()).containsExactly(false, false, true);
        Set<String> keys = new HashSet<>();
        for (WatchItem i : items) {
            ((SnapshotChunk) i).entries().forEach(e -> assertThat(keys.add(e.key())).isTrue());
        }
        assertThat(keys).hasSize(n);
    }

    @Test
    void watchesStartingAtOneSnapshot_shareItsChunks_aChangeOrAnotherPrefixMakesANewOne() {
        Cache c = fx.cache("c", CacheConfig.memory());
        int n = WatcherQueue.CHUNK_ENTRIES + 5;
        for (int i = 0; i < n; i++) {
            c.put("k" + i, CacheFixture.bytes("v" + i), null);
        }
        barrier(c);
        List<CacheWatch> together = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            together.add(Await.get(c.watch(null, null, QUIET)));
        }
        List<WatchItem> first = drain(together.get(0));
        assertThat(first).hasSize(2);
        for (CacheWatch w : together.subList(1, together.size())) {
            // the same chunk instances, not equal copies: a consumer encodes each chunk once for all of them
            List<WatchItem> items = drain(w);
            assertThat(items).hasSize(2);
            assertThat(items.get(0)).isSameAs(first.get(0));
            assertThat(items.get(1)).isSameAs(first.get(1));
        }
        CacheWatch prefixed = Await.get(c.watch("k1", null, QUIET));
        assertThat(drain(prefixed)).noneMatch(i -> i == first.get(0) || i == first.get(1));

        put(c, "k0", "changed");
        CacheWatch later = Await.get(c.watch(null, null, QUIET));
        List<WatchItem> after = drain(later);
        assertThat(((SnapshotChunk) after.get(0)).offset()).isEqualTo(n + 1);
        assertThat(after.get(0)).isNotSameAs(first.get(0));
        Map<String, String> snap = new HashMap<>();
        after.forEach(i -> ((SnapshotChunk) i).entries().forEach(e -> snap.put(e.key(), text(e.value()))));
        assertThat(snap).hasSize(n).containsEntry("k0", "changed");
    }

    @Test
    void emptyCache_snapshotIsOneEmptyLastChunk() {
        Cache c = fx.cache("c", CacheConfig.memory());
        CacheWatch w = Await.get(c.watch(null, null, QUIET));
        assertThat(drain(w)).containsExactly(new SnapshotChunk(0, List.of(), true));
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void resumeFromOffset_yieldsExactlyTheChangesFromIt_thenLive(Backing b) {
        Cache c = cache(b, CacheConfig.memory());
        for (int i = 0; i < 10; i++) {
            put(c, "k" + (i % 3), "v" + i);
        }
        CacheWatch w = Await.get(c.watch(null, 4L, QUIET));
        assertThat(w.startOffset()).isEqualTo(4);
        assertThat(w.startsWithSnapshot()).isFalse();
        List<WatchItem> got = take(w, 6);
        assertThat(got).extracting(i -> ((Change) i).offset()).containsExactly(4L, 5L, 6L, 7L, 8L, 9L);
        assertThat(got).extracting(i -> text(((Change) i).value())).containsExactly("v4", "v5", "v6", "v7", "v8",
                "v9");
        put(c, "live", "x");
        assertThat(take(w, 1)).extracting(i -> ((Change) i).offset()).containsExactly(10L);

        CacheWatch atTail = Await.get(c.watch(null, 11L, QUIET));
        assertThat(drain(atTail)).isEmpty();
        put(c, "next", "y");
        assertThat(take(atTail, 1)).extracting(i -> ((Change) i).key()).containsExactly("next");
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void resumePastTheTail_isCursorInFuture_namingTheTail(Backing b) {
        Cache c = cache(b, CacheConfig.memory());
        put(c, "a", "1");
        FelixException e = watchFailure(c, null, 5L, null);
        assertThat(e.code()).isEqualTo(ErrorCode.CURSOR_IN_FUTURE);
        assertThat(e.error().offset()).isEqualTo(1);
        assertThat(watchFailure(c, null, -1L, null).code()).isEqualTo(ErrorCode.BAD_REQUEST);
    }

    @Test
    void memoryCache_resumeBelowTheRing_isCursorTooOld_namingTheOldestRetained() {
        Cache c = fx.cache("c", CacheConfig.memory().withChangeRing(8, 1 << 20));
        for (int i = 0; i < 20; i++) {
            put(c, "k", "v" + i);
        }
        FelixException e = watchFailure(c, null, 11L, null);
        assertThat(e.code()).isEqualTo(ErrorCode.CURSOR_TOO_OLD);
        assertThat(e.error().offset()).isEqualTo(12);
        assertThat(barrier(c).oldestOffset()).isEqualTo(12);
        CacheWatch ok = Await.get(c.watch(null, 12L, QUIET));
        assertThat(take(ok, 8)).extracting(i -> ((Change) i).offset()).first().isEqualTo(12L);
    }

    @Test
    void memoryCache_ringIsAlsoBoundedInBytes() {
        Cache c = fx.cache("c", CacheConfig.memory().withChangeRing(1000, 2_000));
        for (int i = 0; i < 20; i++) {
            c.put("k" + i, new byte[500], null);
        }
        long oldest = barrier(c).oldestOffset();
        assertThat(oldest).as("about 2000 bytes of 500-byte changes are kept").isBetween(16L, 19L);
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void otherIncarnation_isCursorTooOld(Backing b) {
        Cache c = cache(b, CacheConfig.memory());
        put(c, "a", "1");
        long inc = barrier(c).incarnation();
        assertThat(inc).isPositive().isEqualTo(c.incarnation());
        assertThat(Await.get(c.watch(null, 0L, inc, QUIET)).incarnation()).isEqualTo(inc);
        FelixException e = watchFailure(c, null, 0L, inc + 1);
        assertThat(e.code()).isEqualTo(ErrorCode.CURSOR_TOO_OLD);
        assertThat(e.getMessage()).contains("restarted");
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void overflow_endsTheWatchAfterWhatItHolds_andResumingContinuesGapFree(Backing b) {
        Cache c = cache(b, CacheConfig.memory().withWatcherQueue(new QueueLimits(4, 1 << 20)));
        put(c, "seed", "0");
        CacheWatch w = Await.get(c.watch(null, null, QUIET)); // snapshot at 1
        for (int i = 1; i <= 10; i++) {
            put(c, "k" + i, "v" + i); // offsets 1..10
        }
        List<WatchItem> items = drain(w);
        assertThat(items.get(0)).isInstanceOf(SnapshotChunk.class);
        assertThat(items.subList(1, 5)).extracting(i -> ((Change) i).offset()).containsExactly(1L, 2L, 3L, 4L);
        WatchEnded end = (WatchEnded) items.get(5);
        assertThat(items).hasSize(6);
        assertThat(end.resumeFrom()).isEqualTo(5);
        assertThat(end.reason().code()).isEqualTo(ErrorCode.OVERLOADED);
        assertThat(c.metrics().watchOverflows.sum()).isEqualTo(1);
        assertThat(barrier(c).watchers()).isZero();

        put(c, "k11", "v11");
        CacheWatch resumed = Await.get(c.watch(null, end.resumeFrom(), w.incarnation(), QUIET));
        List<WatchItem> rest = take(resumed, 7);
        assertThat(rest).extracting(i -> ((Change) i).offset()).containsExactly(5L, 6L, 7L, 8L, 9L, 10L, 11L);
        assertThat(drain(resumed)).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void aConsumerThatHoldsBack_isWokenAgainWhenItsQueueIsHalfFull_beforeItOverflows(Backing b) {
        Cache c = cache(b, CacheConfig.memory().withWatcherQueue(new QueueLimits(8, 1 << 20)));
        AtomicInteger ready = new AtomicInteger();
        CacheWatch w = Await.get(c.watch(null, 0L, new WatchListener() { // from offset 0: no snapshot
            @Override
            public void onReady() {
                ready.incrementAndGet();
            }

            @Override
            public boolean holdingBack() {
                return true;
            }
        }));
        put(c, "k0", "v0");
        Await.until("woken by the first change", () -> ready.get() == 1);
        assertThat(w.queueHalfFull()).isFalse();

        // The consumer polls nothing (a broker watch stream lingering): the queue was not empty, so only the
        // change that fills half of it wakes the consumer again.
        for (int i = 1; i < 4; i++) {
            put(c, "k" + i, "v" + i);
        }
        Await.until("woken again at 4 of 8 changes", () -> ready.get() == 2);
        assertThat(w.queueHalfFull()).isTrue();
        put(c, "k4", "v4");
        assertThat(barrier(c).watchers()).isEqualTo(1);
        assertThat(ready).as("no further wake above half").hasValue(2);
        assertThat(drain(w)).extracting(i -> ((Change) i).offset()).containsExactly(0L, 1L, 2L, 3L, 4L);
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void aConsumerThatDrainsWheneverWoken_isNotWokenAgainAtHalf(Backing b) {
        Cache c = cache(b, CacheConfig.memory().withWatcherQueue(new QueueLimits(8, 1 << 20)));
        AtomicInteger ready = new AtomicInteger();
        CacheWatch w = Await.get(c.watch(null, 0L, ready::incrementAndGet)); // holdingBack() false: the default
        put(c, "k0", "v0");
        Await.until("woken by the first change", () -> ready.get() == 1);

        // It has not polled yet (its drain is on its way): the changes that fill half of the queue add to it.
        for (int i = 1; i < 6; i++) {
            put(c, "k" + i, "v" + i);
        }
        assertThat(barrier(c).watchers()).isEqualTo(1);
        assertThat(w.queueHalfFull()).isTrue();
        assertThat(ready).as("one wake for a queue it has not emptied yet").hasValue(1);
        assertThat(drain(w)).hasSize(6);
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void replayFromFarBack_isPacedByTheQueue_neverEnded(Backing b) {
        Cache c = cache(b, CacheConfig.memory().withWatcherQueue(new QueueLimits(4, 1 << 20)));
        for (int i = 0; i < 200; i++) {
            put(c, "k" + (i % 7), "v" + i);
        }
        Mirror m = new Mirror(c, null).attach(Await.get(c.watch(null, 0L, QUIET)));
        m.catchUp(200);
        assertThat(m.ends).isZero();
        assertThat(m.changes.keySet()).hasSize(200);
        assertThat(m.watch.queuedChanges()).isZero();
    }

    @Test
    void memoryReplay_overtakenByTheRing_endsWithCursorTooOld_andTheMirrorConvergesFromASnapshot() {
        Cache c = fx.cache("c", CacheConfig.memory().withChangeRing(16, 1 << 20)
                .withWatcherQueue(new QueueLimits(4, 1 << 20)));
        for (int i = 0; i < 10; i++) {
            put(c, "k" + i, "v" + i);
        }
        Mirror m = new Mirror(c, null).attach(Await.get(c.watch(null, 0L, QUIET))); // replaying: waits for room
        for (int i = 10; i < 60; i++) {
            put(c, "k" + (i % 13), "v" + i); // the ring moves past offset 4
        }
        m.catchUp(barrier(c).nextOffset());
        assertThat(m.ends).isEqualTo(1);
        assertThat(m.tooOld).isEqualTo(1);
        assertThat(m.snapshots).isEqualTo(1);
        assertThat(m.entries).isEqualTo(contents(c, null));
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void prefixWatch_seesExactlyItsKeys_inSnapshotAndChanges_evenAcrossOverflow(Backing b) {
        Cache c = cache(b, CacheConfig.memory().withMaxEntries(6).withWatcherQueue(new QueueLimits(3, 1 << 20)));
        put(c, "a/1", "x");
        put(c, "b/1", "x");
        Mirror a = new Mirror(c, "a/").start();
        Mirror all = new Mirror(c, null).start();
        for (int i = 0; i < 40; i++) {
            String key = (i % 3 == 0 ? "a/" : "b/") + (i % 5);
            if (i % 4 == 3) {
                delete(c, key);
            } else {
                put(c, key, "v" + i);
            }
            if (i == 17) {
                put(c, "a/ttl", "t", Duration.ofSeconds(1));
            }
            if (i == 20) {
                fx.clock.advance(Duration.ofSeconds(2));
                Await.get(c.sweep());
            }
            a.poll(i % 6 == 0 ? 1 : 0); // a slow consumer: overflows, resumes
            all.poll(Integer.MAX_VALUE);
        }
        long next = barrier(c).nextOffset();
        a.catchUp(next);
        all.catchUp(next);
        assertThat(a.entries).isEqualTo(contents(c, "a/"));
        assertThat(all.entries).isEqualTo(contents(c, null));
        assertThat(a.ends).as("the slow prefix watcher overflowed at least once").isPositive();
        // Gap-free for the prefix: every change of "a/" the full watcher saw after the prefix watcher's last
        // snapshot reached the prefix watcher too.
        long from = a.changes.isEmpty() ? next : a.changes.firstKey();
        List<Long> expected = all.changes.subMap(from, next).values().stream()
                .filter(ch -> ch.key().startsWith("a/")).map(Change::offset).toList();
        assertThat(a.offsets(from, next)).isEqualTo(expected);
        assertThat(all.changes.values()).extracting(Change::op).contains(Change.Op.DELETE, Change.Op.EXPIRE,
                Change.Op.EVICT);
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void close_endsWatchesAfterWhatTheyHold_resumable(Backing b) {
        Cache c = cache(b, CacheConfig.memory());
        put(c, "a", "1");
        CacheWatch w = Await.get(c.watch(null, null, QUIET));
        put(c, "b", "2");
        Await.get(c.close());
        List<WatchItem> items = drain(w);
        assertThat(items).hasSize(3);
        assertThat(items.get(1)).isInstanceOf(Change.class);
        WatchEnded end = (WatchEnded) items.get(2);
        assertThat(end.resumeFrom()).isEqualTo(2);
        assertThat(end.reason().code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(Await.failure(c.put("x", CacheFixture.bytes("y"), null)).code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(Await.failure(c.watch(null, null, QUIET)).code()).isEqualTo(ErrorCode.UNAVAILABLE);
    }

    @Test
    void closedWatch_getsNothingMore() {
        Cache c = fx.cache("c", CacheConfig.memory());
        CacheWatch w = Await.get(c.watch(null, null, QUIET));
        w.close();
        assertThat(barrier(c).watchers()).isZero();
        put(c, "a", "1");
        assertThat(drain(w)).isEmpty();
    }

    /** The cache's state (keys under {@code prefix}) from a fresh snapshot. */
    static Map<String, String> contents(Cache c, String prefix) {
        CacheWatch w = Await.get(c.watch(prefix, null, () -> { }));
        Map<String, String> out = new HashMap<>();
        while (true) {
            SnapshotChunk chunk = (SnapshotChunk) w.poll();
            chunk.entries().forEach(e -> out.put(e.key(), text(e.value())));
            if (chunk.last()) {
                break;
            }
        }
        w.close();
        return out;
    }

    /**
     * A put is acknowledged before any watch hears of its change (issue 12 item 4). Telling a watch queues a drain
     * on its event loop; a put acknowledged after that waited, on a broker's one event loop, for the delivery to
     * every watcher first. The writer is held inside the watch's wake-up for one change while the test issues the
     * next put, so the put's future exists before the writer can commit it; the listener then records whether that
     * put was already acknowledged when the watch was told of it.
     */
    @ParameterizedTest
    @EnumSource(Backing.class)
    void aPutIsAcknowledgedBeforeAnyWatchIsToldOfIt(Backing b) throws Exception {
        Cache c = cache(b, CacheConfig.memory());
        put(c, "k", "0");
        AtomicReference<CompletableFuture<Long>> watched = new AtomicReference<>();
        List<Boolean> ackedWhenTold = new CopyOnWriteArrayList<>();
        AtomicBoolean holdNextWake = new AtomicBoolean();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger wakes = new AtomicInteger();
        CacheWatch w = Await.get(c.watch(null, null, () -> {
            wakes.incrementAndGet();
            CompletableFuture<Long> f = watched.get();
            if (f != null) {
                ackedWhenTold.add(f.isDone());
            }
            if (holdNextWake.compareAndSet(true, false)) {
                held.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }));
        Await.until("told of the snapshot", () -> wakes.get() == 1);
        assertThat(drain(w)).singleElement().satisfies(i -> assertThat(((SnapshotChunk) i).last()).isTrue());

        CompletableFuture<Long> second;
        try {
            holdNextWake.set(true);
            CompletableFuture<Long> first = c.put("k", CacheFixture.bytes("1"), null);
            assertThat(held.await(Await.LIMIT.toSeconds(), TimeUnit.SECONDS)).as("the writer told the watch").isTrue();
            assertThat(first.isDone()).as("the first put, acknowledged before the watch was told").isTrue();
            second = c.put("k", CacheFixture.bytes("2"), null);
            watched.set(second);
            assertThat(drain(w)).hasSize(1); // found empty: the next change wakes the watch again
        } finally {
            release.countDown(); // never leave the writer held, even when an assertion above failed
        }

        long offset = Await.get(second);
        Await.until("the watch told of the second put", () -> !ackedWhenTold.isEmpty());
        assertThat(ackedWhenTold).containsExactly(true);
        assertThat(drain(w)).singleElement().satisfies(i -> assertThat(((Change) i).offset()).isEqualTo(offset));
    }
}
