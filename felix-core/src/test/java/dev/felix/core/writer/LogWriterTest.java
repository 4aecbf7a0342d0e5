package dev.felix.core.writer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.storage.FsyncPolicy;
import dev.felix.storage.LogConfig;
import dev.felix.storage.ReadResult;
import dev.felix.storage.SegmentedLog;
import dev.felix.storage.StorageRuntime;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sequencer: offsets, the commit gate deciding visibility, in-order visibility before acknowledgement,
 * one answer per batch, failures answering everything that waits, and a reset ignoring the old log.
 * The writer loop runs inline on the test thread, so every step is deterministic.
 */
class LogWriterTest {

    @TempDir
    Path dir;

    private final List<String> events = new ArrayList<>();
    /** Batches the writer said were dropped without becoming visible ({@link LogWriter.Owner#dropped}). */
    private final List<String> dropped = new ArrayList<>();
    private final WriterLoop loop = new WriterLoop("test", Runnable::run, true);
    private final StorageRuntime runtime = StorageRuntime.builder().flushThreads(1).build();
    private final List<SegmentedLog> logs = new ArrayList<>();

    /** A gate the test opens by hand. */
    private static class ManualGate implements CommitGate {
        final List<Long> appended = new ArrayList<>();
        Committer committer;

        @Override
        public void appended(long end, Committer c) {
            appended.add(end);
            committer = c;
        }

        @Override
        public void force(long end, Committer c) {
            c.committed(end);
        }
    }

    private final LogWriter.Owner<String> owner = new LogWriter.Owner<>() {
        @Override
        public void visible(String batch) {
            events.add("visible " + batch);
        }

        @Override
        public void answer(String batch, FelixError error) {
            events.add("answer " + batch + (error == null ? " ok" : " " + error.code().code()));
        }

        @Override
        public void dropped(String batch) {
            dropped.add(batch);
        }

        @Override
        public void failed(FelixError error) {
            events.add("failed " + error.code().code());
        }
    };

    private LogWriter<String> writer(int maxPending) {
        LogWriter<String> w = new LogWriter<>("test", loop, owner, maxPending, () -> 1L);
        startLoop();
        return w;
    }

    private void startLoop() {
        loop.start(new WriterLoop.Work() {
            @Override
            public void runOnce() {
            }

            @Override
            public boolean hasWork() {
                return false;
            }

            @Override
            public void failed(Throwable cause) {
            }
        });
    }

    private SegmentedLog open(Path d) {
        SegmentedLog log = SegmentedLog.open(d, LogConfig.builder().fsyncPolicy(FsyncPolicy.none()).build(), runtime);
        logs.add(log);
        return log;
    }

    @AfterEach
    void close() {
        logs.forEach(SegmentedLog::close);
        runtime.close();
    }

    @Test
    void inMemory_theImmediateGateMakesEachBatchVisibleThenAnswersIt_atOnce() {
        LogWriter<String> w = writer(10);
        w.append("a", 2, null);
        w.append("b", 3, null);

        assertThat(events).containsExactly("visible a", "answer a ok", "visible b", "answer b ok");
        assertThat(w.next()).isEqualTo(5);
        assertThat(w.committed()).isEqualTo(5);
    }

    @Test
    void aBatchIsVisibleOnlyOnceTheGateCommitsIt_inOffsetOrder_andBacklogCounts() {
        LogWriter<String> w = writer(2);
        ManualGate gate = new ManualGate();
        w.reset(open(dir), 0, gate);
        w.append("a", 1, new byte[][] {{1}});
        w.append("b", 2, new byte[][] {{2}, {3}});

        assertThat(events).isEmpty();
        assertThat(gate.appended).containsExactly(1L, 3L);
        assertThat(w.backlogFull()).isTrue();
        assertThat(w.newestPending()).isEqualTo("b");

        gate.committer.committed(1);
        assertThat(events).containsExactly("visible a", "answer a ok");
        assertThat(w.committed()).isEqualTo(1);
        assertThat(w.backlogFull()).isFalse();

        gate.committer.committed(3);
        assertThat(events).containsExactly("visible a", "answer a ok", "visible b", "answer b ok");
        assertThat(((ReadResult.Records) w.log().read(0, 10, 1 << 20)).records()).hasSize(3);
    }

    @Test
    void aFailedGate_answersEveryWaitingBatchOnce_refusesLaterAppends_untilAReset() {
        LogWriter<String> w = writer(10);
        ManualGate gate = new ManualGate();
        w.reset(open(dir), 0, gate);
        w.append("a", 1, new byte[][] {{1}});
        w.append("b", 1, new byte[][] {{2}});

        gate.committer.failed(new java.io.IOException("disk gone"));

        assertThat(events).containsExactly("answer a unavailable", "answer b unavailable", "failed unavailable");
        assertThat(w.failure().message()).contains("disk gone", "duplicate");
        assertThat(w.append("c", 1, new byte[][] {{3}})).isFalse();
        assertThat(events).last().isEqualTo("answer c unavailable");

        events.clear();
        ManualGate fresh = new ManualGate();
        w.reset(open(dir.resolve("other")), 0, fresh);
        gate.committer.committed(2); // the old log's late verdict: ignored
        assertThat(events).isEmpty();
        assertThat(w.append("d", 1, new byte[][] {{4}})).isTrue();
        fresh.committer.committed(1);
        assertThat(events).containsExactly("visible d", "answer d ok");
    }

    @Test
    void force_commitsWhatWaits_andFailByTheOwner_answersWithItsError() {
        LogWriter<String> w = writer(10);
        ManualGate gate = new ManualGate();
        w.reset(open(dir), 0, gate);
        w.append("a", 1, new byte[][] {{1}});
        w.force();
        assertThat(events).containsExactly("visible a", "answer a ok");

        w.append("b", 1, new byte[][] {{2}});
        w.fail(FelixError.of(ErrorCode.INTERNAL, "the owner's state broke"));
        assertThat(events).containsExactly("visible a", "answer a ok", "answer b internal");
    }

    @Test
    void batchesThatWillNeverBeVisible_areToldDropped_onceEach_whenTheWriterFailsOrIsReset() {
        LogWriter<String> w = writer(10);
        ManualGate gate = new ManualGate();
        w.reset(open(dir.resolve("first")), 0, gate);
        w.append("a", 1, new byte[][] {{1}});
        w.append("b", 1, new byte[][] {{2}});
        w.append("c", 1, new byte[][] {{3}});
        gate.committer.committed(1);
        gate.committer.refused(2, FelixError.of(ErrorCode.QUORUM_TIMEOUT, "no majority"));

        w.fail(FelixError.of(ErrorCode.INTERNAL, "the owner's state broke"));

        assertThat(events).containsExactly("visible a", "answer a ok", "answer b quorum_timeout", "answer c internal");
        assertThat(dropped).as("the refused batch too: it can no longer commit").containsExactly("b", "c");

        ManualGate second = new ManualGate();
        w.reset(open(dir.resolve("second")), 0, second);
        w.append("d", 1, new byte[][] {{4}});
        w.reset(open(dir.resolve("third")), 0, new ManualGate());
        assertThat(dropped).containsExactly("b", "c", "d");
        second.committer.committed(1);
        assertThat(events).as("the old gate's verdict is ignored").doesNotContain("visible d");
    }

    @Test
    void recordsThatCannotBeRead_failTheirBatchAsInternal_andTheLogGoesOn() {
        LogWriter<String> w = writer(10);
        SegmentedLog log = open(dir);
        w.reset(log, 0, CommitGate.immediate());
        dev.felix.storage.PayloadSource unreadable = new dev.felix.storage.PayloadSource() {
            @Override
            public int count() {
                return 1;
            }

            @Override
            public int length(int i) {
                return 3;
            }

            @Override
            public void copyTo(int i, java.nio.ByteBuffer dst) {
                throw new IllegalStateException("the memory was given back");
            }
        };

        assertThat(w.appendFrom("bad", 1, unreadable)).isFalse();
        assertThat(w.append("good", 1, new byte[][] {{7}})).isTrue();

        assertThat(events).containsExactly("answer bad internal", "visible good", "answer good ok");
        assertThat(log.tailOffset()).as("nothing of the failed batch was written").isEqualTo(1);
    }

    @Test
    void aBatchLargerThanOneAppend_isWrittenInChunks_atContiguousOffsets() {
        LogWriter<String> w = writer(10);
        SegmentedLog log = SegmentedLog.open(dir, LogConfig.builder().segmentBytes(64 * 1024)
                .fsyncPolicy(FsyncPolicy.none()).build(), runtime);
        logs.add(log);
        w.reset(log, 0, CommitGate.immediate());
        byte[][] records = new byte[40][];
        for (int i = 0; i < records.length; i++) {
            records[i] = new byte[2000]; // 40 x ~2 KB: more than half a 64 KiB segment, so several appends
            records[i][0] = (byte) i;
        }

        assertThat(w.append("big", 40, records)).isTrue();

        assertThat(events).containsExactly("visible big", "answer big ok");
        assertThat(log.segmentCount()).as("split over segments: more than one append").isGreaterThan(1);
        var read = ((ReadResult.Records) log.read(0, 100, 1 << 20)).records();
        assertThat(read).hasSize(40);
        for (int i = 0; i < 40; i++) {
            assertThat(read.get(i).offset()).isEqualTo(i);
            assertThat(read.get(i).payload()[0]).isEqualTo((byte) i);
        }
    }

    @Test
    void readHistory_reportsARangeRetentionRemovedAsMissing_andReadsWithinTheBounds() {
        LogWriter<String> w = writer(10);
        SegmentedLog log = SegmentedLog.open(dir, LogConfig.builder().segmentBytes(64 * 1024)
                .fsyncPolicy(FsyncPolicy.none()).build(), runtime);
        logs.add(log);
        w.reset(log, 0, CommitGate.immediate());
        for (int i = 0; i < 100; i++) {
            w.append("e" + i, 1, new byte[][] {new byte[2000]}); // ~32 records per segment
        }
        log.trimBefore(50);
        long base = log.baseOffset();
        assertThat(base).as("whole segments below 50 are gone").isGreaterThan(0).isLessThanOrEqualTo(50);

        assertThat(w.readHistory(0, 100, 10, 1 << 20))
                .isEqualTo(new HistoryRead.Missing(0, base - 1, HistoryRead.Reason.RETENTION));
        HistoryRead within = w.readHistory(60, 63, 10, 1 << 20);
        assertThat(((HistoryRead.Records) within).records()).extracting(r -> r.offset())
                .as("never past the end asked for").containsExactly(60L, 61L, 62L);
    }

    @Test
    void aRefusedBatchIsAnsweredAtOnce_yetStaysInLine_andBecomesVisibleUnansweredWhenItCommitsLater() {
        LogWriter<String> w = writer(1);
        ManualGate gate = new ManualGate();
        w.reset(open(dir), 0, gate);
        w.append("a", 1, new byte[][] {{1}});
        assertThat(w.backlogFull()).isTrue();

        gate.committer.refused(1, FelixError.of(ErrorCode.QUORUM_TIMEOUT, "no majority"));
        assertThat(events).containsExactly("answer a quorum_timeout");
        assertThat(w.backlogFull()).as("a refused batch does not hold the writer back").isFalse();
        assertThat(w.committed()).as("refused is not committed").isZero();

        w.append("b", 1, new byte[][] {{2}});
        gate.committer.committed(2);
        assertThat(events).as("a becomes visible when it commits, and is never answered twice")
                .containsExactly("answer a quorum_timeout", "visible a", "visible b", "answer b ok");
        assertThat(w.committed()).isEqualTo(2);
    }

    @Test
    void refusalsReachOnlyBatchesBelowTheirEnd() {
        LogWriter<String> w = writer(10);
        ManualGate gate = new ManualGate();
        w.reset(open(dir), 0, gate);
        w.append("a", 1, new byte[][] {{1}});
        w.append("b", 1, new byte[][] {{2}});

        gate.committer.refused(1, FelixError.of(ErrorCode.QUORUM_TIMEOUT, "no majority"));
        gate.committer.refused(1, FelixError.of(ErrorCode.QUORUM_TIMEOUT, "again"));

        assertThat(events).containsExactly("answer a quorum_timeout");
    }

    @Test
    void aRecoveredTailAboveTheCommittedEnd_staysInvisibleUntilTheGatePassesIt() {
        SegmentedLog log = open(dir);
        log.append(List.of(new byte[] {1}, new byte[] {2}, new byte[] {3}), 1L);
        List<Long> recovered = new ArrayList<>();
        LogWriter<String> w = new LogWriter<>("test", loop, new LogWriter.Owner<>() {
            @Override
            public void visible(String batch) {
                events.add("visible " + batch);
            }

            @Override
            public void answer(String batch, FelixError error) {
                events.add("answer " + batch);
            }

            @Override
            public void failed(FelixError error) {
            }

            @Override
            public void recovered(long end) {
                recovered.add(end);
            }
        }, 10, () -> 1L);
        startLoop();
        ManualGate gate = new ManualGate();

        w.reset(log, 3, 1, gate);
        assertThat(gate.appended).as("the gate is asked about the recovered tail at once").containsExactly(3L);
        assertThat(w.committed()).isEqualTo(1);
        w.append("d", 1, new byte[][] {{4}});

        gate.committer.committed(2);
        assertThat(recovered).containsExactly(2L);
        assertThat(events).isEmpty();
        gate.committer.committed(4);
        assertThat(recovered).containsExactly(2L, 3L);
        assertThat(events).as("the new batch after the recovered records").containsExactly("visible d", "answer d");
        assertThat(w.committed()).isEqualTo(4);
    }

    @Test
    void pastTheHardLimit_newBatchesAreRefusedAtOnce_notQueued() {
        LogWriter<String> w = writer(1);
        ManualGate gate = new ManualGate();
        w.reset(open(dir), 0, gate);
        int limit = LogWriter.PENDING_HARD_LIMIT_FACTOR;
        for (int i = 0; i < limit; i++) {
            w.append("b" + i, 1, new byte[][] {{(byte) i}});
            gate.committer.refused(i + 1, FelixError.of(ErrorCode.QUORUM_TIMEOUT, "no majority"));
        }
        events.clear();
        assertThat(w.append("late", 1, new byte[][] {{9}})).isFalse();
        assertThat(events).containsExactly("answer late unavailable");
        assertThat(w.next()).as("nothing appended").isEqualTo(limit);
    }

    @Test
    void closingTheGate_releasesIt_andIgnoresItsLaterVerdicts() {
        LogWriter<String> w = writer(10);
        boolean[] closed = {false};
        ManualGate gate = new ManualGate() {
            @Override
            public void close() {
                closed[0] = true;
            }
        };
        w.reset(open(dir), 0, gate);
        w.append("a", 1, new byte[][] {{1}});
        CommitGate.Committer old = gate.committer;

        w.closeGate();
        old.committed(1);

        assertThat(closed[0]).isTrue();
        assertThat(events).isEmpty();
    }
}
