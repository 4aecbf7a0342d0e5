package dev.felix.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13 item 1, second half: if two writers ever work on one log (the data directory lock bypassed, as here
 * with two {@link SegmentedLog} instances on one directory), the older one stops at its next flush and
 * {@code felix log verify} reports it, although the data files alone verify clean.
 */
class ConcurrentWritersTest {
    @TempDir
    Path tmp;

    private final StorageRuntime runtime = StorageRuntime.create();

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private static LogConfig config() {
        return LogConfig.builder().fsyncPolicy(FsyncPolicy.onCommit()).build();
    }

    private static byte[] msg(final String writer, final long i) {
        return String.format("%s-%04d", writer, i).getBytes(StandardCharsets.US_ASCII); // equal sizes for both
    }

    @Test
    void twoInstancesAppendingToOneDirectory_areFencedAndReportedByVerify() {
        final Path dir = tmp.resolve("log");
        final SegmentedLog a = SegmentedLog.open(dir, config(), runtime);
        final SegmentedLog b = SegmentedLog.open(dir, config(), runtime);
        try {
            // The scenario: both hand out offsets 0..2 and both acknowledge.
            for (int i = 0; i < 3; i++) {
                a.awaitDurable(a.append(msg("A", i), 1).nextOffset());
            }
            for (int i = 0; i < 3; i++) {
                b.awaitDurable(b.append(msg("B", i), 1).nextOffset());
            }
            // A's acknowledged records were overwritten byte for byte by B's: the data alone shows nothing.
            assertThat(TestSupport.readAll(b)).extracting(r -> new String(r.payload(), StandardCharsets.US_ASCII))
                .containsExactly("B-0000", "B-0001", "B-0002");

            // A's next flush finds B's session and stops A before it acknowledges anything more.
            final AppendResult late = a.append(msg("A", 3), 1);
            assertThatThrownBy(() -> a.awaitDurable(late.nextOffset())).isInstanceOfSatisfying(StorageException.class, e -> {
                assertThat(e.code()).isEqualTo(StorageErrorCode.CONCURRENT_WRITER);
                assertThat(e.getMessage()).contains(dir.toString()).contains("another writer")
                    .contains("pid " + ProcessHandle.current().pid()).contains("felix log verify");
            });
            assertThatThrownBy(() -> a.append(msg("A", 4), 1)).isInstanceOfSatisfying(StorageException.class,
                e -> assertThat(e.code()).isEqualTo(StorageErrorCode.CONCURRENT_WRITER));
            // B, the newer writer, carries on.
            b.awaitDurable(b.append(msg("B", 3), 1).nextOffset());
        } finally {
            a.close();
            b.close();
        }

        final LogTools.Verification v = LogTools.verify(dir);
        assertThat(v.clean()).isFalse();
        assertThat(v.records()).as("every record checksum passes").isEqualTo(4);
        assertThat(v.problems()).as("the only evidence is the writer history").allSatisfy(p -> {
            assertThat(p.file()).isEqualTo(dir.resolve(WriterHistoryDescriptor.FILE_NAME));
            assertThat(p.code()).isEqualTo("CONCURRENT_WRITERS");
        });
        assertThat(v.problems()).isNotEmpty();
        assertThat(v.problems().get(0).message()).contains("two writers worked on this log at the same time")
            .contains("may have been overwritten");
        assertThat(v.render()).startsWith("CORRUPT").contains("CONCURRENT_WRITERS");
    }

    @Test
    void sessionsStartingAtOnceOnOneDirectory_allRecordTheirStart() throws Exception {
        for (int round = 0; round < 30; round++) {
            final Path d = tmp.resolve("round-" + round);
            java.nio.file.Files.createDirectories(d);
            final int sessions = 6;
            final java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(sessions);
            final java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            final java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(sessions);
            try {
                for (int s = 0; s < sessions; s++) {
                    done.add(pool.submit(() -> {
                        final WriterHistory h = new WriterHistory(d, () -> 1L);
                        together.await();
                        h.start(0); // every one creates the file at once: one wins, none fails
                        return null;
                    }));
                }
                for (final java.util.concurrent.Future<?> f : done) {
                    f.get(30, java.util.concurrent.TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            final WriterHistory.Decoded h = WriterHistory.decode(java.nio.file.Files.readAllBytes(
                d.resolve(WriterHistoryDescriptor.FILE_NAME)));
            assertThat(h.entries()).extracting(WriterHistory.Entry::kind).as("round " + round)
                .containsOnly(WriterHistoryDescriptor.START).hasSize(sessions);
        }
    }

    @Test
    void twoWritersThatCloseWithoutAnotherFlush_areStillReported() {
        final Path dir = tmp.resolve("log");
        final LogConfig none = LogConfig.builder().fsyncPolicy(FsyncPolicy.none()).build();
        final SegmentedLog a = SegmentedLog.open(dir, none, runtime);
        final SegmentedLog b = SegmentedLog.open(dir, none, runtime);
        a.append(msg("A", 0), 1);
        b.append(msg("B", 0), 1);
        b.close();
        assertThatThrownBy(a::close).isInstanceOfSatisfying(StorageException.class,
            e -> assertThat(e.code()).isEqualTo(StorageErrorCode.CONCURRENT_WRITER));
        assertThat(LogTools.verify(dir).problems()).extracting(LogTools.Problem::code).containsExactly("CONCURRENT_WRITERS");
    }

    @Test
    void writersOneAfterAnother_areClean_andReadOnlyOpensWriteNothing() {
        final Path dir = tmp.resolve("log");
        for (int session = 0; session < 4; session++) {
            try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
                log.awaitDurable(log.append(List.of(msg("S", session), msg("S", session)), 1).nextOffset());
            }
        }
        final java.util.Map<String, byte[]> before = TestSupport.snapshot(dir);
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(TestSupport.readAll(log)).hasSize(8);
        }
        assertThat(TestSupport.snapshot(dir)).containsExactlyInAnyOrderEntriesOf(before);
        final WriterHistory.Decoded h = WriterHistory.decode(before.get(WriterHistoryDescriptor.FILE_NAME));
        assertThat(h.entries()).extracting(WriterHistory.Entry::kind).containsExactly(
            WriterHistoryDescriptor.START, WriterHistoryDescriptor.END, WriterHistoryDescriptor.START, WriterHistoryDescriptor.END,
            WriterHistoryDescriptor.START, WriterHistoryDescriptor.END, WriterHistoryDescriptor.START, WriterHistoryDescriptor.END);
        assertThat(h.entries()).extracting(WriterHistory.Entry::offset).containsExactly(0L, 2L, 2L, 4L, 4L, 6L, 6L, 8L);
        assertThat(LogTools.verify(dir).clean()).isTrue();
    }

    @Test
    void aLogChangedBetweenTwoCleanSessions_isReported() {
        final Path dir = tmp.resolve("log");
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            log.append(List.of(msg("S", 0), msg("S", 1), msg("S", 2)), 1);
        }
        final Path seg = TestSupport.segmentFiles(dir).get(0);
        final List<long[]> recs = TestSupport.records(seg);
        TestSupport.truncateFile(seg, recs.get(2)[1]); // someone removed the last record at a record boundary
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.recoveryReport().tailRepair()).as("nothing torn to see in the data").isEmpty();
            log.append(msg("S", 3), 1);
        }
        assertThat(LogTools.verify(dir).problems()).singleElement().satisfies(p -> {
            assertThat(p.code()).isEqualTo("LOG_CHANGED_BETWEEN_WRITERS");
            assertThat(p.message()).contains("began writing at offset 2").contains("closed cleanly at offset 3");
        });
    }
}
