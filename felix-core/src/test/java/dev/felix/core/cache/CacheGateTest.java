package dev.felix.core.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.StreamConfig;
import dev.felix.core.testing.Await;
import dev.felix.core.writer.CommitGate;
import dev.felix.core.writer.GateFactory;
import dev.felix.core.writer.LogRef;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log cache opens its log through its node's {@link GateFactory}, as a durable stream shard does: in a cluster the
 * gate may refuse (this node does not lead the cache now) and may know only part of the recovered log committed (a
 * new leader after a quorum promotion). Changes past the committed end stay invisible — to readers and watchers —
 * until the gate commits them, and then arrive in offset order before anything written after them.
 */
class CacheGateTest {

    private static final CacheConfig CONFIG = CacheConfig.builder().backing(CacheConfig.Backing.LOG)
            .fsync(StreamConfig.Fsync.PERIODIC).build();

    @TempDir
    Path dir;

    private CacheFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    /** A gate that commits only when the test says so. */
    static class HeldGate implements CommitGate {
        volatile Committer committer;
        /** The log's end as the writer last reported it. */
        volatile long appendedEnd = -1;

        @Override
        public void appended(long end, Committer c) {
            committer = c;
            appendedEnd = end;
        }

        @Override
        public void force(long end, Committer c) {
            committer = c;
        }

        void commit(long end) {
            committer.committed(end);
        }

        void refuse(long end, FelixError error) {
            committer.refused(end, error);
        }
    }

    @Test
    void changesPastTheCommittedEnd_stayInvisibleUntilTheGateCommitsThem_thenArriveInOrder() {
        writeTenAndClose();

        HeldGate gate = new HeldGate();
        AtomicReference<LogRef> opened = new AtomicReference<>();
        Cache c = fx.cache("c", CONFIG, (ref, log, onCommit) -> {
            opened.set(ref);
            return new GateFactory.Opened(gate, 5); // only offsets below 5 are known committed
        });
        var info = Await.get(c.load());
        assertThat(opened.get()).isEqualTo(new LogRef(LogRef.Kind.CACHE, "t/ns/c", 7, 0));
        assertThat(info.nextOffset()).as("visible: the committed part").isEqualTo(5);
        assertThat(gate.appendedEnd).as("the writer handed the recovered tail to the gate").isEqualTo(10);
        for (int i = 0; i < 5; i++) {
            assertThat(get(c, "k" + i)).as("k" + i).isEqualTo("v" + i);
        }
        // The previous leader may have acknowledged the tail: its keys are refused, never read as what they replaced.
        for (int i = 5; i < 10; i++) {
            assertRefusedAsTakingOver(c, "k" + i, i);
        }
        assertThat(get(c, "never-written")).isNull();
        // A watch resuming from an offset gets the committed changes, then the tail's as they commit; a snapshot
        // watch waits until the tail is visible (a snapshot before it would hold what the tail replaced).
        Mirror mirror = new Mirror(c, null).attach(Await.get(c.watch(null, 0L, () -> { })));
        mirror.catchUp(5);
        assertThat(mirror.entries).hasSize(5);
        var snapshotWatch = c.watch(null, null, () -> { });

        // A delete that finds nothing to delete was decided on the tail too: it is answered after it. A load (which
        // reads wait on) is not held behind the tail.
        var noChange = c.delete("absent");
        assertThat(Await.get(c.load()).nextOffset()).isEqualTo(5);

        // A new put is decided after the uncommitted tail (its offset follows the log's end) and waits with it.
        var put = c.put("k3", bytes("new"), null);
        Await.until("the put reaches the gate", () -> gate.appendedEnd == 11);
        assertThat(put).isNotDone();
        assertThat(get(c, "k3")).isEqualTo("v3");

        gate.commit(7);
        Await.until("offsets 5 and 6 are visible", () -> c.info().nextOffset() == 7);
        assertThat(get(c, "k6")).isEqualTo("v6");
        assertRefusedAsTakingOver(c, "k7", 7); // offset 7 is not committed yet
        assertThat(noChange).isNotDone();
        assertThat(snapshotWatch).as("no snapshot before the whole tail is visible").isNotDone();

        gate.commit(11);
        assertThat(Await.get(put)).isEqualTo(10L);
        assertThat(Await.get(noChange)).isEqualTo(Cache.NO_CHANGE);
        mirror.catchUp(11);
        for (int i = 5; i < 10; i++) {
            assertThat(mirror.changes.get((long) i).key()).isEqualTo("k" + i);
        }
        assertThat(mirror.changes.get(10L).key()).isEqualTo("k3");
        assertThat(mirror.entries).hasSize(10).containsEntry("k3", "new").containsEntry("k9", "v9");
        assertThat(get(c, "k9")).isEqualTo("v9");
        assertThat(get(c, "k3")).isEqualTo("new");
        assertThat(c.info().nextOffset()).isEqualTo(11);
        CacheWatch late = Await.get(snapshotWatch);
        assertThat(late.startOffset()).as("its snapshot is taken once the tail is visible").isEqualTo(10);
        Mirror afterTail = new Mirror(c, null).attach(late);
        afterTail.catchUp(11);
        assertThat(afterTail.lastSnapshot).isEqualTo(10);
        assertThat(afterTail.entries).isEqualTo(mirror.entries);
    }

    @Test
    void whatWaitedOnTheTail_isAnsweredBeforeTheWatchesAreToldOfTheTail() {
        // A put is acknowledged before the watches hear of its change (CacheWatchTest
        // .aPutIsAcknowledgedBeforeAnyWatchIsToldOfIt); so is a request a new leader held behind its inherited tail.
        writeTenAndClose();
        HeldGate gate = new HeldGate();
        Cache c = fx.cache("c", CONFIG, (ref, log, onCommit) -> new GateFactory.Opened(gate, 5));
        Await.get(c.load());
        AtomicReference<CompletableFuture<Long>> waiting = new AtomicReference<>();
        List<Boolean> answeredWhenTold = new CopyOnWriteArrayList<>();
        Mirror mirror = new Mirror(c, null).attach(Await.get(c.watch(null, 0L, () -> {
            CompletableFuture<Long> f = waiting.get();
            if (f != null) {
                answeredWhenTold.add(f.isDone());
            }
        })));
        mirror.catchUp(5);
        CompletableFuture<Long> noChange = c.delete("absent"); // decided on the tail: answered once it commits
        waiting.set(noChange);
        Await.get(c.load()); // the delete is with the writer
        assertThat(noChange).isNotDone();

        gate.commit(10);
        Await.until("the watch is told of the tail", () -> !answeredWhenTold.isEmpty());
        assertThat(answeredWhenTold.get(0)).as("the delete answered when the watch was first told").isTrue();
        assertThat(Await.get(noChange)).isEqualTo(Cache.NO_CHANGE);
        mirror.catchUp(10);
        for (int i = 5; i < 10; i++) {
            assertThat(mirror.changes.get((long) i).key()).isEqualTo("k" + i);
        }
    }

    @Test
    void aGateThatCommitsTheTailAsItIsHandedOver_makesItVisible_andTheCacheGoesOn() {
        // A replicated gate whose followers already hold the tail commits it inside appended(), on the writer thread,
        // while the cache is still loading. Once (ClusterFaultRunTest) the tail then never reached the cache's view
        // and change ring, and the next batch failed the writer ("change ring expects offset 1034, got 1035").
        writeTenAndClose();

        HeldGate gate = new HeldGate() {
            @Override
            public void appended(long end, Committer c) {
                super.appended(end, c);
                c.committed(end); // a majority holds it already
            }
        };
        Cache c = fx.cache("c", CONFIG, (ref, log, onCommit) -> new GateFactory.Opened(gate, 5));
        Await.until("the tail is visible", () -> Await.get(c.load()).nextOffset() == 10);
        for (int i = 0; i < 10; i++) {
            assertThat(get(c, "k" + i)).as("k" + i).isEqualTo("v" + i);
        }
        Mirror mirror = new Mirror(c, null).start();
        assertThat(Await.get(c.put("k3", bytes("new"), null))).isEqualTo(10L);
        mirror.catchUp(11);
        assertThat(mirror.entries).hasSize(10).containsEntry("k3", "new").containsEntry("k9", "v9");
        assertThat(get(c, "k3")).isEqualTo("new");
    }

    @Test
    void aKeyTheInheritedTailChanges_isReadOnlyOnceItsLastChangeThereIsVisible() {
        fx = new CacheFixture(dir);
        Cache first = fx.cache("c", CONFIG);
        Await.get(first.put("k0", bytes("a0"), null)); // 0
        Await.get(first.put("k1", bytes("a1"), null)); // 1
        Await.get(first.put("k2", bytes("a2"), null)); // 2
        Await.get(first.put("k1", bytes("b1"), null)); // 3: the tail starts here
        Await.get(first.delete("k2")); // 4
        Await.get(first.put("k1", bytes("c1"), null)); // 5
        Await.get(first.close());

        HeldGate gate = new HeldGate();
        Cache c = fx.cache("c", CONFIG, (ref, log, onCommit) -> new GateFactory.Opened(gate, 3));
        Await.get(c.load());
        assertThat(get(c, "k0")).isEqualTo("a0");
        assertRefusedAsTakingOver(c, "k1", 5); // its last change in the tail, not its first (3)
        assertRefusedAsTakingOver(c, "k2", 4); // deleted there: never read as a2
        var snapshotWatch = c.watch(null, null, () -> { });

        gate.commit(5);
        Await.until("offsets 3 and 4 are visible", () -> c.info().nextOffset() == 5);
        assertThat(get(c, "k2")).as("the delete is visible").isNull();
        assertRefusedAsTakingOver(c, "k1", 5); // b1 is visible, but c1 replaced it
        assertThat(snapshotWatch).as("part of the tail is not visible yet").isNotDone();

        gate.commit(6);
        Await.until("the tail is visible", () -> c.info().nextOffset() == 6);
        assertThat(get(c, "k1")).isEqualTo("c1");
        Mirror mirror = new Mirror(c, null).attach(Await.get(snapshotWatch));
        mirror.catchUp(6);
        assertThat(mirror.lastSnapshot).isEqualTo(6);
        assertThat(mirror.entries).containsOnly(java.util.Map.entry("k0", "a0"), java.util.Map.entry("k1", "c1"));
    }

    @Test
    void aChangeTheGateRefusesInTime_failsOnlyItsWriter_readsAndWatchesGoOn_andItBecomesVisibleIfCommittedLater() {
        fx = new CacheFixture(dir);
        HeldGate gate = new HeldGate();
        Cache c = fx.cache("c", CONFIG, (ref, log, onCommit) -> new GateFactory.Opened(gate, log.tailOffset()));
        Await.get(c.load());
        var first = c.put("k", bytes("v1"), null);
        Await.until("the first put reaches the gate", () -> gate.appendedEnd == 1);
        gate.commit(1);
        assertThat(Await.get(first)).isZero();
        Mirror mirror = new Mirror(c, null).start();
        mirror.catchUp(1);

        var second = c.put("k", bytes("v2"), null);
        Await.until("the second put reaches the gate", () -> gate.appendedEnd == 2);
        FelixError timeout = FelixError.of(ErrorCode.QUORUM_TIMEOUT,
                "the batch is durable here but did not reach a majority within 5s");
        gate.refuse(2, timeout);
        assertThat(Await.failure(second).error()).isEqualTo(timeout);

        // Nothing else changed: the cache is still loaded, reads see what was visible, the watch goes on.
        assertThat(get(c, "k")).isEqualTo("v1");
        assertThat(c.info().loaded()).isTrue();
        assertThat(c.info().nextOffset()).isEqualTo(1);
        var third = c.put("other", bytes("x"), null);
        Await.until("a later put is still taken", () -> gate.appendedEnd == 3);

        gate.commit(3); // a majority holds both after all
        assertThat(Await.get(third)).isEqualTo(2L);
        assertThat(get(c, "k")).as("the refused change became visible").isEqualTo("v2");
        mirror.catchUp(3);
        assertThat(mirror.ends).isZero();
        assertThat(mirror.entries).containsEntry("k", "v2").containsEntry("other", "x");
    }

    @Test
    void aGateThatRefuses_failsTheUseWithItsError_andALaterUseTriesAgain() {
        fx = new CacheFixture(dir);
        AtomicReference<FelixError> refusal = new AtomicReference<>(
                FelixError.of(ErrorCode.NOT_LEADER, "node n2 leads cache t/ns/c (epoch 3)"));
        GateFactory gates = new GateFactory() {
            @Override
            public Opened open(LogRef ref, dev.felix.storage.SegmentedLog log, boolean onCommit) throws FelixException {
                FelixError e = refusal.get();
                if (e != null) {
                    throw e.toException();
                }
                return LOCAL.open(ref, log, onCommit);
            }
        };
        Cache c = fx.cache("c", CONFIG, gates);
        FelixException refused = Await.failure(c.put("k", bytes("v"), null));
        assertThat(refused.error()).isEqualTo(refusal.get());

        refusal.set(null); // this node leads it now
        // A put that reached the cache while the refused open was still failing its queue gets that refusal (seen
        // once in a full verify); a use after that opens the log again, and nothing was written before it.
        AtomicReference<Long> offset = new AtomicReference<>();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> {
            java.util.concurrent.CompletableFuture<Long> put = c.put("k", bytes("v"), null);
            try {
                offset.set(put.get(5, java.util.concurrent.TimeUnit.SECONDS));
                return true;
            } catch (java.util.concurrent.ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(FelixException.class);
                return false;
            }
        });
        assertThat(offset.get()).isZero();
        assertThat(get(c, "k")).isEqualTo("v");
    }

    /** Writes k0..k9 = v0..v9 (offsets 0 to 9) into cache c and closes it, as its previous leader would have. */
    private void writeTenAndClose() {
        fx = new CacheFixture(dir);
        Cache first = fx.cache("c", CONFIG);
        for (int i = 0; i < 10; i++) {
            Await.get(first.put("k" + i, bytes("v" + i), null));
        }
        Await.get(first.close());
    }

    private static void assertRefusedAsTakingOver(Cache c, String key, long offset) {
        FelixException refused = catchThrowableOfType(FelixException.class,
                () -> c.get(key));
        assertThat(refused).as(key).isNotNull();
        assertThat(refused.error().code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(refused.getMessage()).contains("cache t/ns/c is being taken over: key " + key
                + " has a change (offset " + offset + ") from the previous leader");
    }

    private static String get(Cache c, String key) {
        try {
            return c.get(key).map(v -> new String(v, StandardCharsets.UTF_8)).orElse(null);
        } catch (FelixException e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
