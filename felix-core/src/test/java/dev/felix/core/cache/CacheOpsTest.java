package dev.felix.core.cache;

import static dev.felix.core.cache.CacheFixture.barrier;
import static dev.felix.core.cache.CacheFixture.bytes;
import static dev.felix.core.cache.CacheFixture.delete;
import static dev.felix.core.cache.CacheFixture.get;
import static dev.felix.core.cache.CacheFixture.put;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;
import dev.felix.core.QueueLimits;
import dev.felix.core.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * put / get / delete, offsets, validation, TTL (lazy and sweep), LRU eviction and counters; every test
 * that does not depend on the backing runs against each backing (the matrix dimension {@link Backing}).
 */
class CacheOpsTest {

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

    private Cache cache(Backing b) {
        return fx.cache("c", b.config());
    }

    private Cache cache(Backing b, CacheConfig config) {
        return fx.cache("c", b.apply(config));
    }

    /** The changes the cache made, from offset 0 to its next offset (a roomy snapshot watch started first). */
    private static List<Change> changesOf(Mirror m, Cache c) {
        long next = barrier(c).nextOffset();
        m.catchUp(next);
        return new ArrayList<>(m.changes.values());
    }

    private static String describe(List<Change> changes) {
        return changes.stream().map(c -> c.offset() + ":" + c.op() + " " + c.key()).collect(Collectors.joining(", "));
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void putGetDelete_assignContiguousOffsets(Backing b) {
        Cache c = cache(b);
        assertThat(put(c, "a", "1")).isZero();
        assertThat(put(c, "b", "2")).isEqualTo(1);
        assertThat(get(c, "a")).isEqualTo("1");
        assertThat(put(c, "a", "3")).isEqualTo(2);
        assertThat(get(c, "a")).isEqualTo("3");
        assertThat(delete(c, "a")).isEqualTo(3);
        assertThat(get(c, "a")).isNull();
        assertThat(delete(c, "a")).as("deleting an absent key changes nothing").isEqualTo(Cache.NO_CHANGE);
        assertThat(delete(c, "never")).isEqualTo(Cache.NO_CHANGE);
        assertThat(put(c, "a", "4")).as("a no-op uses no offset").isEqualTo(4);
        CacheInfo info = barrier(c);
        assertThat(info.nextOffset()).isEqualTo(5);
        assertThat(info.entries()).isEqualTo(2);
        assertThat(info.oldestOffset()).isZero();
        CacheMetrics m = c.metrics();
        assertThat(m.puts.sum()).isEqualTo(4);
        assertThat(m.deletes.sum()).isEqualTo(1);
        assertThat(m.hits.sum()).isEqualTo(2);
        assertThat(m.misses.sum()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void concurrentWriters_getDistinctContiguousOffsets(Backing b) throws Exception {
        Cache c = cache(b);
        int threads = 4;
        int each = 300;
        ConcurrentLinkedQueue<Long> offsets = new ConcurrentLinkedQueue<>();
        CyclicBarrier go = new CyclicBarrier(threads);
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                try {
                    go.await();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                List<CompletableFuture<Long>> fs = new ArrayList<>();
                for (int i = 0; i < each; i++) {
                    fs.add(i % 5 == 4 ? c.delete("k" + id + "-" + (i - 1)) : c.put("k" + id + "-" + i, bytes("v"), null));
                }
                for (CompletableFuture<Long> f : fs) {
                    offsets.add(Await.get(f));
                }
            });
            th.start();
            ts.add(th);
        }
        for (Thread th : ts) {
            th.join(Await.LIMIT.toMillis());
            assertThat(th.isAlive()).isFalse();
        }
        Set<Long> distinct = new HashSet<>(offsets);
        assertThat(offsets).doesNotContain(Cache.NO_CHANGE); // every delete names a key put just before
        assertThat(distinct).hasSize(threads * each);
        assertThat(distinct).allMatch(o -> o >= 0 && o < threads * each);
        assertThat(barrier(c).nextOffset()).isEqualTo(threads * each);
    }

    @Test
    void invalidArguments_failWithBadRequest() {
        Cache c = fx.cache("c", CacheConfig.memory().withMaxValueBytes(8));
        List<CompletableFuture<Long>> bad = List.of(
                c.put(null, bytes("v"), null),
                c.put("", bytes("v"), null),
                c.put("k".repeat(Cache.MAX_KEY_LENGTH + 1), bytes("v"), null),
                c.put("bad\uD800key", bytes("v"), null),
                c.put("k", null, null),
                c.put("k", new byte[9], null),
                c.put("k", bytes("v"), Duration.ZERO),
                c.put("k", bytes("v"), Duration.ofSeconds(-1)),
                c.delete(null),
                c.delete("\uDC00"));
        for (CompletableFuture<Long> f : bad) {
            assertThat(Await.failure(f).code()).isEqualTo(ErrorCode.BAD_REQUEST);
        }
        assertThatThrownBy(() -> c.get("")).isInstanceOfSatisfying(FelixException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST));
        assertThat(put(c, "k".repeat(Cache.MAX_KEY_LENGTH), "12345678")).isZero();
        assertThat(put(c, "emoji-\uD83D\uDE00", "ok")).isEqualTo(1);
        assertThat(get(c, "emoji-\uD83D\uDE00")).isEqualTo("ok");
    }

    @Test
    void fullWriterQueue_refusesWithOverloaded_andNeverBlocks() {
        List<Runnable> pending = new ArrayList<>();
        CacheConfig config = CacheConfig.memory().withWriterQueue(new QueueLimits(2, 1 << 20));
        Cache c = new Cache(CacheFixture.name("q"), config, null, pending::add, Runnable::run, fx.clock, () -> 1);
        CompletableFuture<Long> a = c.put("a", bytes("1"), null);
        CompletableFuture<Long> b = c.put("b", bytes("2"), null);
        CompletableFuture<Long> refused = c.put("c", bytes("3"), null);
        assertThat(Await.failure(refused).code()).isEqualTo(ErrorCode.OVERLOADED);
        assertThat(c.metrics().rejected.sum()).isEqualTo(1);
        assertThat(a).isNotDone();
        assertThat(pending).hasSize(1); // one writer run scheduled, not yet run
        pending.remove(0).run();
        assertThat(a.join()).isZero();
        assertThat(b.join()).isEqualTo(1);
        assertThat(c.put("c", bytes("3"), null)).isNotDone(); // room again
    }

    // ------------------------------------------------------------------ TTL

    @ParameterizedTest
    @EnumSource(Backing.class)
    void expiredEntry_readsAsAbsentAtOnce_andItsRemovalIsAChange(Backing b) {
        Cache c = cache(b);
        Mirror m = new Mirror(c, null).start();
        put(c, "k", "v", Duration.ofSeconds(10));
        put(c, "other", "v");
        fx.clock.advance(Duration.ofMillis(9_999));
        assertThat(get(c, "k")).isEqualTo("v");
        fx.clock.advance(Duration.ofMillis(1));
        assertThat(get(c, "k")).as("lazy expiry: absent as soon as the TTL ran out").isNull();
        assertThat(get(c, "k")).isNull();
        Await.until("the EXPIRE change is visible", () -> barrier(c).nextOffset() == 3);
        List<Change> changes = changesOf(m, c);
        assertThat(changes).extracting(Change::op).containsExactly(Change.Op.PUT, Change.Op.PUT, Change.Op.EXPIRE);
        assertThat(changes.get(2).key()).isEqualTo("k");
        assertThat(changes.get(0).expiresAtMillis()).isEqualTo(fx.clock.millis());
        assertThat(c.metrics().expirations.sum()).isEqualTo(1);
        assertThat(barrier(c).entries()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void sweep_removesExpiredEntriesWithoutReads_inExpiryOrder(Backing b) {
        Cache c = cache(b);
        Mirror m = new Mirror(c, null).start();
        put(c, "late", "v", Duration.ofSeconds(3));
        put(c, "early", "v", Duration.ofSeconds(1));
        put(c, "forever", "v");
        put(c, "later", "v", Duration.ofSeconds(60));
        fx.clock.advance(Duration.ofSeconds(5));
        assertThat(Await.get(c.sweep())).isEqualTo(2);
        assertThat(Await.get(c.sweep())).isZero();
        List<Change> changes = changesOf(m, c);
        assertThat(changes.subList(4, 6)).extracting(Change::op, Change::key)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Change.Op.EXPIRE, "early"),
                        org.assertj.core.groups.Tuple.tuple(Change.Op.EXPIRE, "late"));
        assertThat(m.entries).containsOnlyKeys("forever", "later");
        assertThat(c.metrics().expirations.sum()).isEqualTo(2);
        assertThat(c.metrics().misses.sum()).isZero();
    }

    @Test
    void sweep_ofManyEntries_yieldsBetweenPasses_andRemovesThemAll() {
        Cache c = fx.cache("c", CacheConfig.memory());
        int n = CacheStore.EXPIRE_PER_PASS * 2 + 17;
        for (int i = 0; i < n; i++) {
            c.put("k" + i, bytes("v"), Duration.ofSeconds(1));
        }
        assertThat(barrier(c).entries()).isEqualTo(n);
        fx.clock.advance(Duration.ofSeconds(1));
        assertThat(Await.get(c.sweep())).isEqualTo(n);
        assertThat(barrier(c).entries()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void defaultTtl_appliesToPutsWithoutOne_andAPutRestartsTheTtl(Backing b) {
        Cache c = cache(b, CacheConfig.memory().withDefaultTtl(Duration.ofSeconds(10)));
        put(c, "dflt", "v");
        put(c, "explicit", "v", Duration.ofHours(1));
        put(c, "renewed", "v");
        fx.clock.advance(Duration.ofSeconds(8));
        put(c, "renewed", "v2");
        fx.clock.advance(Duration.ofSeconds(8));
        assertThat(get(c, "dflt")).isNull();
        assertThat(get(c, "explicit")).isEqualTo("v");
        assertThat(get(c, "renewed")).isEqualTo("v2");
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void deletingAnExpiredKey_isANoOp_thatRecordsTheExpiry(Backing b) {
        Cache c = cache(b);
        Mirror m = new Mirror(c, null).start();
        put(c, "k", "v", Duration.ofSeconds(1));
        fx.clock.advance(Duration.ofSeconds(2));
        assertThat(delete(c, "k")).isEqualTo(Cache.NO_CHANGE);
        assertThat(changesOf(m, c)).extracting(Change::op).containsExactly(Change.Op.PUT, Change.Op.EXPIRE);
        assertThat(c.metrics().deletes.sum()).isZero();
        assertThat(c.metrics().expirations.sum()).isEqualTo(1);
    }

    // ------------------------------------------------------------------ capacity

    @ParameterizedTest
    @EnumSource(Backing.class)
    void lru_evictsTheLeastRecentlyUsed_readsCount(Backing b) {
        Cache c = cache(b, CacheConfig.memory().withMaxEntries(3));
        Mirror m = new Mirror(c, null).start();
        put(c, "a", "1");
        put(c, "b", "2");
        put(c, "c", "3");
        assertThat(get(c, "a")).isEqualTo("1"); // LRU order now b, c, a
        assertThat(put(c, "d", "4")).isEqualTo(3); // evicts b (offset 4)
        assertThat(get(c, "c")).isEqualTo("3"); // a, d, c
        put(c, "a", "1'"); // a write is a use too: d, c, a
        put(c, "e", "5"); // evicts d
        List<Change> changes = changesOf(m, c);
        assertThat(describe(changes)).isEqualTo(
                "0:PUT a, 1:PUT b, 2:PUT c, 3:PUT d, 4:EVICT b, 5:PUT a, 6:PUT e, 7:EVICT d");
        assertThat(get(c, "b")).isNull();
        assertThat(get(c, "d")).isNull();
        assertThat(m.entries).containsOnlyKeys("a", "c", "e");
        assertThat(c.metrics().evictions.sum()).isEqualTo(2);
        assertThat(barrier(c).entries()).isEqualTo(3);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 5, 64})
    void capacityMatrix_keepsTheNewestEntries_evictingInInsertionOrder(int capacity) {
        Cache c = fx.cache("c", CacheConfig.memory().withMaxEntries(capacity));
        Mirror m = new Mirror(c, null).start();
        int n = 100;
        for (int i = 0; i < n; i++) {
            put(c, "k" + i, "v" + i);
        }
        List<Change> evictions = changesOf(m, c).stream().filter(ch -> ch.op() == Change.Op.EVICT).toList();
        assertThat(evictions).extracting(Change::key)
                .containsExactlyElementsOf(java.util.stream.IntStream.range(0, n - capacity).mapToObj(i -> "k" + i)
                        .toList());
        assertThat(c.metrics().evictions.sum()).isEqualTo(n - capacity);
        assertThat(barrier(c).entries()).isEqualTo(capacity);
        assertThat(get(c, "k" + (n - 1))).isEqualTo("v" + (n - 1)); // the newest is never the victim
        assertThat(barrier(c).nextOffset()).isEqualTo(n + (n - capacity));
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void atCapacity_expiredEntriesGoBeforeLiveOnesAreEvicted(Backing b) {
        Cache c = cache(b, CacheConfig.memory().withMaxEntries(2));
        Mirror m = new Mirror(c, null).start();
        put(c, "live-old", "v");
        put(c, "short", "v", Duration.ofSeconds(1));
        fx.clock.advance(Duration.ofSeconds(2));
        put(c, "new", "v");
        assertThat(describe(changesOf(m, c))).isEqualTo("0:PUT live-old, 1:PUT short, 2:PUT new, 3:EXPIRE short");
        assertThat(c.metrics().evictions.sum()).isZero();
        assertThat(get(c, "live-old")).isEqualTo("v");
    }
}
