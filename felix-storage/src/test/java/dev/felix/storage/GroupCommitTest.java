package dev.felix.storage;

import static dev.felix.storage.TestSupport.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Flush futures, group commit and the three fsync policies, observed through a recording file channel. */
class GroupCommitTest {
    private static final int PAYLOAD = 64;
    private static final int FRAME = 28 + PAYLOAD;

    @TempDir
    Path tmp;

    private final FaultyChannel.Faults faults = new FaultyChannel.Faults();
    private final StorageRuntime runtime = StorageRuntime.builder().channelOpener(faults).build();

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private static LogConfig onCommit() {
        return LogConfig.builder().fsyncPolicy(FsyncPolicy.onCommit()).build();
    }

    @Test
    void onCommit_concurrentWriters_shareFlushes_andNoFutureCompletesBeforeItsBytesWereForced() throws Exception {
        final Path dir = tmp.resolve("log");
        final Path segment = dir.resolve(SegmentFiles.logName(0));
        final int threads = 16;
        final int perThread = 40;
        final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        try (SegmentedLog log = SegmentedLog.open(dir, onCommit(), runtime)) {
            final CyclicBarrier start = new CyclicBarrier(threads);
            final List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                workers.add(new Thread(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < perThread; i++) {
                            final AppendResult r = log.append(new byte[PAYLOAD], 1);
                            final long endOfRecord = 32L + (r.lastOffset() + 1) * FRAME;
                            log.flush(r.nextOffset()).thenRun(() -> {
                                // runs when the future completes: the bytes must already be forced
                                if (log.durableOffset() < r.nextOffset()) {
                                    violations.add("durable " + log.durableOffset() + " < " + r.nextOffset());
                                }
                                if (faults.forcedSize(segment) < endOfRecord) {
                                    violations.add("forced " + faults.forcedSize(segment) + " < " + endOfRecord);
                                }
                            }).get(30, TimeUnit.SECONDS);
                        }
                    } catch (final Exception e) {
                        violations.add(e.toString());
                    }
                }));
            }
            workers.forEach(Thread::start);
            for (final Thread w : workers) {
                w.join();
            }
            assertThat(violations).isEmpty();
            assertThat(log.tailOffset()).isEqualTo((long) threads * perThread);
            assertThat(log.durableOffset()).isEqualTo(log.tailOffset());
        }
        final LogMetrics m = runtime.metrics();
        assertThat(m.groupCommitRequests()).isEqualTo((long) threads * perThread);
        assertThat(m.groupCommitMaxFanIn()).as("fan-in").isGreaterThan(1);
        assertThat(m.groupCommitSyncs()).isLessThan(m.groupCommitRequests());
    }

    @Test
    void flush_ofDurableOffsetCompletesAtOnce_andBeyondTheTailIsRejected() {
        try (SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), onCommit(), runtime)) {
            assertThat(log.flush(0)).isCompleted();
            log.append(payload(0, 5), 1);
            assertThat(log.flush(5)).isCompletedExceptionally();
            assertThatThrownBy(() -> log.awaitDurable(5)).isInstanceOfSatisfying(StorageException.class,
                e -> assertThat(e.code()).isEqualTo(StorageErrorCode.INVALID_ARGUMENT));
            log.awaitDurable(1);
            assertThat(log.durableOffset()).isEqualTo(1);
            assertThat(log.flush(1)).isCompleted();
        }
    }

    @Test
    void failedFsync_failsTheFuture_andPoisonsTheLogUntilReopened() {
        final Path dir = tmp.resolve("log");
        final SegmentedLog log = SegmentedLog.open(dir, onCommit(), runtime);
        log.append(payload(0, 10), 1);
        log.awaitDurable(1);
        faults.failForce = true;
        final AppendResult r = log.append(payload(1, 10), 2);
        final CompletableFuture<Void> f = log.flush(r.nextOffset());
        await().atMost(Duration.ofSeconds(10)).until(f::isDone);
        assertThatThrownBy(f::join).hasCauseInstanceOf(StorageException.class).cause()
            .satisfies(e -> assertThat(((StorageException) e).code()).isEqualTo(StorageErrorCode.SYNC_FAILED))
            .hasMessageContaining("reopened");
        assertThat(log.durableOffset()).isEqualTo(1);
        assertThatThrownBy(() -> log.append(payload(2, 10), 3)).isInstanceOfSatisfying(StorageException.class,
            e -> assertThat(e.code()).isEqualTo(StorageErrorCode.SYNC_FAILED));
        assertThat(log.flush(2)).isCompletedExceptionally();
        assertThat(runtime.metrics().syncFailures()).isEqualTo(1);
        log.close();
        faults.failForce = false;
        try (SegmentedLog reopened = SegmentedLog.open(dir, onCommit(), runtime)) {
            assertThat(reopened.tailOffset()).isEqualTo(2); // the bytes were written, only the fsync failed
            assertThat(reopened.durableOffset()).isEqualTo(2);
        }
    }

    @Test
    void periodic_flushesOnTheSharedTimer() {
        final LogConfig cfg = LogConfig.builder().fsyncPolicy(FsyncPolicy.periodic(Duration.ofMillis(20))).build();
        final int timersBefore = runtime.scheduledTaskCount();
        final SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), cfg, runtime);
        assertThat(runtime.scheduledTaskCount()).isEqualTo(timersBefore + 1);
        log.append(payload(0, 10), 1);
        log.append(payload(1, 10), 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> log.durableOffset() == 2);
        log.close();
        assertThat(runtime.scheduledTaskCount()).isEqualTo(timersBefore);
    }

    @Test
    void none_neverFlushesByItself_butFlushesOnSealAndClose() {
        final Path dir = tmp.resolve("log");
        final LogConfig cfg = LogConfig.builder().segmentBytes(1024).fsyncPolicy(FsyncPolicy.none()).build();
        final SegmentedLog log = SegmentedLog.open(dir, cfg, runtime);
        assertThat(runtime.scheduledTaskCount()).isZero();
        final int forcesAfterOpen = faults.forces.get();
        for (int i = 0; i < 5; i++) {
            log.append(payload(i, 100), 1);
        }
        assertThat(faults.forces.get()).isEqualTo(forcesAfterOpen); // nothing scheduled, nothing forced
        assertThat(log.durableOffset()).isZero();
        for (int i = 5; i < 12; i++) {
            log.append(payload(i, 100), 1); // rolls: the sealed segment is flushed in the background
        }
        final Path first = dir.resolve(SegmentFiles.logName(0));
        await().atMost(Duration.ofSeconds(10)).until(() -> faults.forcedSize(first) == first.toFile().length());
        log.close();
        try (SegmentedLog reopened = SegmentedLog.open(dir, cfg, runtime)) {
            assertThat(reopened.tailOffset()).isEqualTo(12);
        }
    }

    @Test
    void sync_makesEverythingDurableUnderAnyPolicy() {
        final LogConfig cfg = LogConfig.builder().fsyncPolicy(FsyncPolicy.none()).build();
        try (SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), cfg, runtime)) {
            log.append(TestSupport.batch(0, 3, 10), 1);
            log.sync();
            assertThat(log.durableOffset()).isEqualTo(3);
        }
    }

    @Test
    void onCommit_withRollsUnderConcurrency_keepsEveryAcknowledgedRecord() throws Exception {
        final Path dir = tmp.resolve("log");
        final LogConfig cfg = LogConfig.builder().segmentBytes(2048).fsyncPolicy(FsyncPolicy.onCommit()).build();
        final ConcurrentLinkedQueue<AppendResult> acked = new ConcurrentLinkedQueue<>();
        try (SegmentedLog log = SegmentedLog.open(dir, cfg, runtime)) {
            final List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                workers.add(new Thread(() -> {
                    for (int i = 0; i < 30; i++) {
                        final AppendResult r = log.append(List.of(new byte[100], new byte[50]), 1);
                        log.awaitDurable(r.nextOffset());
                        acked.add(r);
                    }
                }));
            }
            workers.forEach(Thread::start);
            for (final Thread w : workers) {
                w.join();
            }
            assertThat(log.segmentCount()).isGreaterThan(5);
        }
        try (SegmentedLog log = SegmentedLog.open(dir, cfg, runtime)) {
            assertThat(log.tailOffset()).isEqualTo(8 * 30 * 2);
            assertThat(TestSupport.readAll(log)).hasSize(8 * 30 * 2);
        }
        assertThat(acked).hasSize(240);
    }

    @Test
    void closedRuntime_failsFlushesCleanly() {
        final StorageRuntime rt = StorageRuntime.builder().build();
        final SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), onCommit(), rt);
        log.append(payload(0, 5), 1);
        rt.close();
        assertThat(log.flush(1)).isCompletedExceptionally();
        log.close(); // final flush runs on the caller, files released
        assertThatThrownBy(() -> SegmentedLog.open(tmp.resolve("log"), onCommit(), rt))
            .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.code()).isEqualTo(StorageErrorCode.CLOSED));
    }
}
