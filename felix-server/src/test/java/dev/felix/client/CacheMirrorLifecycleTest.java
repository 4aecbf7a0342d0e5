package dev.felix.client;

import dev.felix.wire.ErrorCode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.felix.core.FelixException;
import dev.felix.core.cache.CacheName;
import dev.felix.server.TestBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link CacheMirror}'s states against a real broker: a snapshot at an offset, then every change in order
 * (to listeners too); a stalled mirror whose watch the broker ended, resuming from its offset when the
 * broker still holds it (no change lost or applied twice, no second snapshot) and converging through a fresh
 * snapshot when it does not; ended by the broker going away; stopped by close.
 */
@Timeout(180)
class CacheMirrorLifecycleTest {

    private static final CacheRef CONFIG = CacheRef.parse("t1/default/config");

    @TempDir
    Path dir;

    /**
     * What a listener saw: changes as "key=value@offset" ("key=-@offset" for a removal), and the offsets of the
     * snapshots that replaced the copy. (A listener added right after {@code mirror(...)} returns may or may
     * not see the initial snapshot's reset: the mirror counts as started before its listeners are told.)
     */
    private static final class Recorder implements CacheMirror.Listener {
        final List<String> seen = new CopyOnWriteArrayList<>();
        final List<Long> changeOffsets = new CopyOnWriteArrayList<>();
        final List<Long> resets = new CopyOnWriteArrayList<>();

        @Override
        public void onChange(String key, byte[] value, long offset) {
            seen.add(key + "=" + (value == null ? "-" : text(value)) + "@" + offset);
            changeOffsets.add(offset);
        }

        @Override
        public void onReset(long offset) {
            resets.add(offset);
        }

        /** Resets by a snapshot later than the one the mirror started from. */
        long resetsAfter(long startOffset) {
            return resets.stream().filter(o -> o > startOffset).count();
        }
    }

    private static int watchersAtTheBroker(TestBroker broker, CacheRef ref) throws FelixException {
        return broker.server().broker().caches().find(new CacheName(ref.tenant(), ref.namespace(), ref.cache()))
                .map(c -> c.info().watchers()).orElse(0);
    }

    @Test
    void start_appliesASnapshotAtAnOffset_thenEveryChangeInOrder() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient writer = broker.connect();
                FelixClient watcher = broker.connect(); Cache cache = writer.cache(CONFIG)) {
            cache.put("a", bytes("1"), null);
            cache.put("b", bytes("2"), null);
            cache.put("c", bytes("3"), null);
            cache.delete("c");

            CacheMirror mirror = watcher.mirror(CONFIG, null);
            Recorder recorder = new Recorder();
            mirror.addListener(recorder);

            assertThat(mirror.snapshots()).isEqualTo(1);
            assertThat(mirror.caughtUp()).isTrue();
            assertThat(mirror.appliedOffset()).as("changes 0..3 are in the snapshot").isEqualTo(4);
            assertThat(textMap(mirror.snapshot())).isEqualTo(Map.of("a", "1", "b", "2"));
            assertThat(mirror.rewatches()).isZero();
            assertThat(mirror.endCause()).isNull();

            cache.put("a", bytes("10"), null);
            cache.delete("b");
            cache.put("d", bytes("4"), null);
            await().atMost(Duration.ofSeconds(20)).until(() -> mirror.appliedOffset() == 7);

            assertThat(recorder.seen).containsExactly("a=10@4", "b=-@5", "d=4@6");
            assertThat(mirror.changesApplied()).isEqualTo(3);
            assertThat(mirror.get("a")).hasValueSatisfying(v -> assertThat(text(v)).isEqualTo("10"));
            assertThat(mirror.get("b")).isEmpty();
            assertThat(mirror.size()).isEqualTo(2);
        }
    }

    /** A listener of {@code snapshotAndListen}: the offsets and puts it received, cheap to add to. */
    private static final class Follower implements CacheMirror.Listener {
        final List<Long> offsets = java.util.Collections.synchronizedList(new ArrayList<>());
        final Map<String, String> puts = new java.util.concurrent.ConcurrentHashMap<>();
        volatile boolean reset;

        @Override
        public void onChange(String key, byte[] value, long offset) {
            offsets.add(offset);
            puts.put(key, text(value));
        }

        @Override
        public void onReset(long offset) {
            reset = true;
        }

        long lastOffset() {
            synchronized (offsets) {
                return offsets.isEmpty() ? -1 : offsets.get(offsets.size() - 1);
            }
        }
    }

    @Test
    void snapshotAndListen_whileChangesArrive_eachListenerGetsExactlyTheChangesAfterItsCopy() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient writer = broker.connect();
                FelixClient watcher = broker.connect(); Cache cache = writer.cache(CONFIG)) {
            cache.put("k0", bytes("0"), null);
            CacheMirror mirror = watcher.mirror(CONFIG, null);
            int puts = 6_000;
            CompletableFuture<Long> writes = CompletableFuture.supplyAsync(() -> {
                // Pipelined, up to 32 in flight: changes reach the watcher in a steady stream of bursts.
                java.util.concurrent.Semaphore window = new java.util.concurrent.Semaphore(32);
                java.util.concurrent.atomic.AtomicLong last = new java.util.concurrent.atomic.AtomicLong(-1);
                List<CompletableFuture<Long>> all = new ArrayList<>();
                for (int i = 1; i <= puts; i++) {
                    window.acquireUninterruptibly();
                    all.add(cache.putAsync("k" + (i % 40), bytes(Integer.toString(i)), null)
                            .whenComplete((o, e) -> {
                                if (o != null) {
                                    last.accumulateAndGet(o, Math::max);
                                }
                                window.release();
                            }));
                }
                CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
                return last.get();
            });
            // Copies taken while changes keep landing on the watcher's event loop: with a copy and a listener
            // added one after the other, a change landing between them is missed or seen twice.
            List<CacheMirror.Copy> copies = new ArrayList<>();
            List<Follower> followers = new ArrayList<>();
            while (!writes.isDone() && copies.size() < 200) {
                Follower f = new Follower();
                copies.add(mirror.snapshotAndListen(f));
                followers.add(f);
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // spread them out
            }
            long last = writes.get(60, TimeUnit.SECONDS);
            assertThat(copies).as("copies taken while the puts ran").hasSizeGreaterThan(10);
            // Every follower whose copy was taken before the last put has received it (listeners run after the
            // mirror advances its offset, so the offset alone does not say they have).
            await().atMost(Duration.ofSeconds(20)).until(() -> mirror.appliedOffset() == last + 1);
            for (int i = 0; i < copies.size(); i++) {
                Follower f = followers.get(i);
                if (copies.get(i).nextOffset() <= last) {
                    await().atMost(Duration.ofSeconds(20)).until(() -> f.lastOffset() == last);
                }
            }

            Map<String, String> finalState = textMap(mirror.snapshot());
            for (int i = 0; i < copies.size(); i++) {
                CacheMirror.Copy copy = copies.get(i);
                Follower f = followers.get(i);
                List<Long> expected = new ArrayList<>();
                for (long o = copy.nextOffset(); o <= last; o++) {
                    expected.add(o);
                }
                assertThat(f.offsets).as("copy %d at offset %d", i, copy.nextOffset()).isEqualTo(expected);
                assertThat(f.reset).as("no snapshot replaced copy %d", i).isFalse();
                Map<String, String> replayed = new HashMap<>(textMap(copy.entries()));
                replayed.putAll(f.puts);
                assertThat(replayed).as("copy %d plus its listener's changes", i).isEqualTo(finalState);
            }
        }
    }

    @Test
    void aPrefixMirror_holdsOnlyTheKeysUnderIt() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect(); Cache cache = c.cache(CONFIG)) {
            cache.put("app.x", bytes("1"), null);
            cache.put("db.y", bytes("2"), null);
            CacheMirror app = c.mirror(CONFIG, "app.");

            cache.put("app.z", bytes("3"), null);
            long tail = cache.put("db.w", bytes("4"), null) + 1;
            Recorder recorder = new Recorder();
            app.addListener(recorder);
            cache.put("app.last", bytes("5"), null);

            await().atMost(Duration.ofSeconds(20)).until(() -> app.get("app.last").isPresent());
            assertThat(app.snapshot().keySet()).containsExactlyInAnyOrder("app.x", "app.z", "app.last");
            assertThat(recorder.seen).containsExactly("app.last=5@" + tail);
        }
    }

    @Test
    void stalled_theBrokerEndsTheWatch_theMirrorResumesFromItsOffset_everyChangeOnceInOrder_noSecondSnapshot()
            throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient writer = broker.connect();
                FelixClient watcher = broker.connect(b -> b.transport(TestBroker.smallWindows(16 << 10)));
                Cache cache = writer.cache(CONFIG)) {
            cache.put("k0", bytes("v"), null);
            CacheMirror mirror = watcher.mirror(CONFIG, null, 4); // a broker-side watch queue of 4 changes
            Recorder recorder = new Recorder();
            mirror.addListener(recorder);
            long first = mirror.appliedOffset();
            mirror.pause();

            Map<String, String> expected = new HashMap<>(Map.of("k0", "v"));
            int i = 0;
            // Write until the broker has ended the stalled watch (its window and queue are full).
            while (watchersAtTheBroker(broker, CONFIG) > 0 && i < 100_000) {
                for (int n = 0; n < 200; n++, i++) {
                    String k = "k" + (i % 100);
                    cache.putAsync(k, bytes("v" + i), null);
                    expected.put(k, "v" + i);
                }
                cache.put("sync", bytes("" + i), null);
                expected.put("sync", "" + i);
            }
            assertThat(watchersAtTheBroker(broker, CONFIG)).as("the broker ended the stalled watch").isZero();
            long tail = cache.put("done", bytes("1"), null) + 1;
            expected.put("done", "1");

            mirror.resume();
            await().atMost(Duration.ofSeconds(60)).until(() -> mirror.appliedOffset() == tail && mirror.caughtUp());

            assertThat(textMap(mirror.snapshot())).isEqualTo(expected);
            assertThat(mirror.rewatches()).isPositive();
            assertThat(mirror.snapshots()).as("the broker still held the resume offset: no fresh snapshot").isEqualTo(1);
            assertThat(recorder.resetsAfter(first)).isZero();
            List<Long> contiguous = new ArrayList<>();
            for (long o = first; o < tail; o++) {
                contiguous.add(o);
            }
            assertThat(recorder.changeOffsets).as("every change once, in order, across the re-watch")
                    .containsExactlyElementsOf(contiguous);
        }
    }

    @Test
    void stalledPastTheChangeHistory_theMirrorConvergesThroughAFreshSnapshot() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient writer = broker.connect();
                FelixClient watcher = broker.connect(b -> b.transport(TestBroker.smallWindows(16 << 10)));
                Cache cache = writer.cache(CONFIG)) {
            cache.put("k0", bytes("v"), null);
            CacheMirror mirror = watcher.mirror(CONFIG, null, 4);
            Recorder recorder = new Recorder();
            mirror.addListener(recorder);
            long first = mirror.appliedOffset();
            mirror.pause();
            Map<String, String> expected = new HashMap<>(Map.of("k0", "v"));
            int i = 0;
            while (watchersAtTheBroker(broker, CONFIG) > 0 && i < 100_000) {
                for (int n = 0; n < 200; n++, i++) {
                    cache.putAsync("small" + (i % 50), bytes("s" + i), null);
                    expected.put("small" + (i % 50), "s" + i);
                }
                cache.put("sync", bytes("" + i), null);
                expected.put("sync", "" + i);
            }
            assertThat(watchersAtTheBroker(broker, CONFIG)).as("the broker ended the stalled watch").isZero();
            // Past the change history (64 MiB by default): the mirror's resume offset is gone.
            byte[] mib = new byte[1 << 20];
            List<CompletableFuture<Long>> puts = new ArrayList<>();
            for (int n = 0; n < 80; n++) {
                java.util.Arrays.fill(mib, (byte) ('a' + n % 26));
                puts.add(cache.putAsync("big" + (n % 4), mib.clone(), null));
                expected.put("big" + (n % 4), new String(mib, StandardCharsets.UTF_8));
                if (puts.size() >= 8) {
                    puts.remove(0).get(30, TimeUnit.SECONDS);
                }
            }
            long tail = cache.put("done", bytes("1"), null) + 1;
            expected.put("done", "1");

            mirror.resume();
            await().atMost(Duration.ofSeconds(90)).until(() -> mirror.appliedOffset() == tail && mirror.caughtUp());

            assertThat(textMap(mirror.snapshot())).isEqualTo(expected);
            assertThat(mirror.snapshots()).as("a fresh snapshot replaced the copy").isEqualTo(2);
            assertThat(recorder.resetsAfter(first)).as("the listener was told the copy was replaced").isEqualTo(1);
            assertThat(mirror.rewatches()).isPositive();
        }
    }

    @Test
    void theBrokerShutsDown_theMirrorEndsWithTheShutdownReason_andIsNoLongerCaughtUp() throws Exception {
        TestBroker broker = TestBroker.start(dir);
        try (FelixClient c = broker.connect(); Cache cache = c.cache(CONFIG)) {
            cache.put("a", bytes("1"), null);
            CacheMirror mirror = c.mirror(CONFIG, null);
            assertThat(mirror.caughtUp()).isTrue();

            broker.close();

            await().atMost(Duration.ofSeconds(30)).until(() -> mirror.endCause() != null);
            assertThat(mirror.endCause().code()).isEqualTo(ErrorCode.BROKER_SHUTTING_DOWN);
            assertThat(mirror.caughtUp()).isFalse();
            assertThat(textMap(mirror.snapshot())).as("the last copy stays readable").isEqualTo(Map.of("a", "1"));
        } finally {
            broker.close();
        }
    }

    @Test
    void close_stopsFollowing_andTheBrokerDropsTheWatch() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect(); Cache cache = c.cache(CONFIG)) {
            cache.put("a", bytes("1"), null);
            CacheMirror closed = c.mirror(CONFIG, null);
            CacheMirror open = c.mirror(CONFIG, null);
            await().atMost(Duration.ofSeconds(20)).until(() -> watchersAtTheBroker(broker, CONFIG) == 2);
            AtomicInteger changesAfterClose = new AtomicInteger();

            closed.close();
            closed.addListener((key, value, offset) -> changesAfterClose.incrementAndGet());
            cache.put("b", bytes("2"), null);

            await().atMost(Duration.ofSeconds(20)).until(() -> open.get("b").isPresent());
            await().atMost(Duration.ofSeconds(20)).until(() -> watchersAtTheBroker(broker, CONFIG) == 1);
            assertThat(closed.caughtUp()).isFalse();
            assertThat(closed.get("b")).isEmpty();
            assertThat(changesAfterClose).hasValue(0);
        }
    }

    @Test
    void aMissingCache_withoutAutoCreate_failsTheStartWithNotFound() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("auto_create", "false")); FelixClient c = broker.connect()) {
            assertThatThrownBy(() -> c.mirror(CacheRef.parse("t1/default/missing"), null))
                    .isInstanceOfSatisfying(FelixClientException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static Map<String, String> textMap(Map<String, byte[]> m) {
        Map<String, String> out = new HashMap<>();
        m.forEach((k, v) -> out.put(k, text(v)));
        return out;
    }
}
