package dev.felix.core.cache;

import static dev.felix.core.cache.CacheFixture.barrier;
import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.FelixException;
import dev.felix.core.QueueLimits;
import dev.felix.core.testing.Await;
import dev.felix.testing.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The property the cache exists for: under concurrent writers doing random puts, deletes, TTL puts and
 * reads (with expiry, sweeps, evictions and, for log caches, compactions), every watcher — unfiltered or by
 * prefix, fast or slow enough to overflow its queue again and again — ends up holding exactly the cache's
 * final state, and between its last snapshot and the end it received exactly the changes of its prefix, in
 * order, with no gap. A lossless reference watch records the whole change history to compare against.
 *
 * <p>Fixed seeds; the writers' operation sequences are deterministic, their interleaving is not (that is
 * the point). Bounded: a few thousand operations per case.
 */
class WatchConvergenceTest {

    private static final int WRITERS = 3;
    private static final int OPS_PER_WRITER = 1500;
    private static final String[] PREFIXES = {"a/", "b/", "c/"};

    @TempDir
    Path tmp;

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (Backing b : new Backing[] {Backing.MEMORY, Backing.LOG_ON_COMMIT, Backing.LOG_PERIODIC}) {
            for (long seed : new long[] {1, 42, 20260101}) {
                out.add(Arguments.of(b, seed));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} seed {1}")
    @MethodSource("cases")
    void everyWatcherConvergesToTheFinalState_gapFree(Backing backing, long seed) throws Exception {
        try (CacheFixture fx = new CacheFixture(tmp)) {
            CacheConfig config = backing.apply(CacheConfig.memory()
                    .withMaxEntries(40)
                    .withChangeRing(64, 1 << 20)
                    .withWatcherQueue(new QueueLimits(8, 1 << 20))
                    .withSnapshotEveryChanges(400)
                    .withSegmentBytes(CacheConfig.MIN_SEGMENT_BYTES));
            Cache c = fx.cache("c", config);
            Mirror reference = new Mirror(c, null).attach(
                    Await.get(c.watch(null, null, null, new QueueLimits(1 << 20, 1L << 30), () -> { })));
            List<Mirror> mirrors = List.of(new Mirror(c, null).start(), new Mirror(c, null).start(),
                    new Mirror(c, "a/").start(), new Mirror(c, "b/").start(), new Mirror(c, "c/1").start());

            Random consumer = new Random(seed);
            CountDownLatch done = new CountDownLatch(WRITERS);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int t = 0; t < WRITERS; t++) {
                Random r = new Random(seed * 31 + t);
                int id = t;
                Thread th = new Thread(() -> {
                    try {
                        writer(c, r, id == 0 ? fx.clock : null);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    } finally {
                        done.countDown();
                    }
                }, "cache-writer-" + t);
                th.setDaemon(true);
                th.start();
            }
            int round = 0;
            while (done.getCount() > 0) {
                for (Mirror m : mirrors) {
                    if (consumer.nextInt(3) == 0) {
                        m.poll(consumer.nextInt(12)); // slow and bursty: overflows and resumes
                    }
                }
                reference.poll(Integer.MAX_VALUE);
                if (++round % 50 == 0) {
                    c.sweep();
                }
                Thread.onSpinWait();
            }
            assertThat(failure.get()).isNull();

            CacheInfo info = barrier(c);
            long next = info.nextOffset();
            reference.catchUp(next);
            assertThat(reference.ends).as("the reference watch is lossless").isZero();
            assertThat(reference.changes).hasSize((int) (next - reference.lastSnapshot));
            int overflows = 0;
            for (Mirror m : mirrors) {
                m.catchUp(next);
                Map<String, String> truth = CacheWatchTest.contents(c, m.prefix);
                assertThat(m.entries).as("mirror %s converged", m.prefix).isEqualTo(truth);
                // Gap-free since its last snapshot: exactly the reference's changes of its prefix, same values.
                List<String> expected = reference.changes.subMap(m.lastSnapshot, next).values().stream()
                        .filter(ch -> m.prefix == null || ch.key().startsWith(m.prefix))
                        .map(WatchConvergenceTest::describe).toList();
                List<String> got = m.changes.subMap(m.lastSnapshot, next).values().stream()
                        .map(WatchConvergenceTest::describe).toList();
                assertThat(got).as("mirror %s: changes since its snapshot at %d", m.prefix, m.lastSnapshot)
                        .isEqualTo(expected);
                overflows += m.ends;
            }
            assertThat(reference.entries).isEqualTo(CacheWatchTest.contents(c, null));
            assertThat(info.entries()).isLessThanOrEqualTo(40);
            assertThat(overflows).as("the slow mirrors overflowed and recovered").isPositive();
            assertThat(c.metrics().evictions.sum()).isPositive();
            assertThat(c.metrics().expirations.sum()).isPositive();
        }
    }

    private static String describe(Change ch) {
        return ch.offset() + " " + ch.op() + " " + ch.key() + "=" + CacheFixture.text(ch.value());
    }

    /**
     * One writer: a deterministic sequence of puts, TTL puts, deletes and reads, a few in flight at once. With
     * a clock, it also moves time on (so TTLs run out while the others write) and asks for sweeps.
     */
    private static void writer(Cache c, Random r, ManualClock clock) throws FelixException {
        List<CompletableFuture<Long>> inFlight = new ArrayList<>();
        for (int i = 0; i < OPS_PER_WRITER; i++) {
            if (clock != null && i % 10 == 9) {
                clock.advance(Duration.ofMillis(300));
                if (i % 100 == 99) {
                    c.sweep();
                }
            }
            String key = PREFIXES[r.nextInt(PREFIXES.length)] + r.nextInt(30);
            int dice = r.nextInt(100);
            if (dice < 45) {
                inFlight.add(c.put(key, CacheFixture.bytes("v" + r.nextInt(1000)), null));
            } else if (dice < 60) {
                inFlight.add(c.put(key, CacheFixture.bytes("t" + r.nextInt(1000)),
                        Duration.ofMillis(200 + r.nextInt(1800))));
            } else if (dice < 85) {
                inFlight.add(c.delete(key));
            } else {
                c.get(key); // reads drive LRU order and lazy expiry
            }
            if (inFlight.size() >= 8) {
                inFlight.forEach(Await::get);
                inFlight.clear();
            }
        }
        inFlight.forEach(Await::get);
    }
}
