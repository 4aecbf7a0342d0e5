package dev.felix.storage;

import static dev.felix.storage.TestSupport.payload;
import static dev.felix.storage.TestSupport.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * resetTo: a follower starts at its leader's base with nothing in it; crash-safe by a marker (commit point),
 * checked here at every crash point by building the directory a crash would leave.
 */
class ResetToTest {
    @TempDir
    Path tmp;

    private final StorageRuntime runtime = StorageRuntime.create();

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private static LogConfig config() {
        return LogConfig.builder().segmentBytes(600).indexSpacingBytes(128).fsyncPolicy(FsyncPolicy.onCommit()).build();
    }

    /** 30 records of 60 bytes (several segments), epochs 2 (0..) and 5 (20..); closed. */
    private Path filled(final String name) {
        final Path dir = tmp.resolve(name);
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            log.beginEpoch(2);
            for (int i = 0; i < 30; i++) {
                if (i == 20) {
                    log.beginEpoch(5);
                }
                log.append(payload(i, 60), 1000 + i);
            }
        }
        assertThat(TestSupport.segmentFiles(dir)).hasSizeGreaterThan(2);
        return dir;
    }

    private static void assertResetAt(final SegmentedLog log, final long offset) {
        assertThat(log.baseOffset()).isEqualTo(offset);
        assertThat(log.tailOffset()).isEqualTo(offset);
        assertThat(log.epochHistory()).isEmpty();
        assertThat(log.lastEpoch()).isEqualTo(-1);
        assertThat(log.read(0, 10, 1000)).isEqualTo(new ReadResult.Trimmed(0, offset));
        assertThat(log.read(offset, 10, 1000)).isEqualTo(new ReadResult.Records(List.of(), offset, 0));
        assertThat(log.segmentCount()).isEqualTo(1);
    }

    private static void assertOld(final SegmentedLog log) {
        assertThat(log.baseOffset()).isZero();
        assertThat(log.tailOffset()).isEqualTo(30);
        final List<LogRecord> all = readAll(log);
        for (int i = 0; i < 30; i++) {
            assertThat(all.get(i)).isEqualTo(new LogRecord(i, 1000 + i, payload(i, 60)));
        }
        assertThat(log.epochHistory()).containsExactly(new EpochEntry(2, 0), new EpochEntry(5, 20));
    }

    @ParameterizedTest
    @ValueSource(longs = {30, 31, 100, 1_000_000_000_000L})
    void resetTo_atOrPastTheTail_leavesAnEmptyLogThere_andAppendsContinue(final long offset) throws Exception {
        final Path dir = filled("log");
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            log.resetTo(offset);
            assertResetAt(log, offset);
            assertThat(log.durableOffset()).isEqualTo(offset);
            log.beginEpoch(1); // the reset history took any epoch
            final AppendResult r = log.appendAt(offset, List.of(payload(offset, 5)), new long[] {9});
            assertThat(r.firstOffset()).isEqualTo(offset);
            log.flush(r.nextOffset()).get();
        }
        assertThat(TestSupport.segmentFiles(dir)).hasSize(1);
        assertThat(Files.exists(dir.resolve(ResetMarkerDescriptor.FILE_NAME))).isFalse();
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.baseOffset()).isEqualTo(offset);
            assertThat(readAll(log)).containsExactly(new LogRecord(offset, 9, payload(offset, 5)));
            assertThat(log.epochHistory()).containsExactly(new EpochEntry(1, offset));
            assertThat(log.recoveryReport().resetCompleted()).isFalse();
        }
        assertThat(LogTools.verify(dir).clean()).isTrue();
    }

    @Test
    void resetTo_anEmptyNewLog() {
        try (SegmentedLog log = SegmentedLog.open(tmp.resolve("new"), config(), runtime)) {
            log.resetTo(500);
            assertResetAt(log, 500);
        }
    }

    @Test
    void resetTo_belowTheTail_isRefusedTyped_andChangesNothing() {
        final Path dir = filled("log");
        final Map<String, byte[]> before = TestSupport.snapshot(dir);
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThatThrownBy(() -> log.resetTo(29)).isInstanceOfSatisfying(StorageException.class, e -> {
                assertThat(e.code()).isEqualTo(StorageErrorCode.OFFSET_MISMATCH);
                assertThat(e.getMessage()).contains("29").contains("tail 30").contains("truncate");
            });
            assertOld(log);
        }
        assertThat(TestSupport.snapshot(dir)).containsExactlyInAnyOrderEntriesOf(before);
    }

    // ------------------------------------------------------------------ crash points of the protocol

    @Test
    void crashBeforeTheCommitPoint_leavesTheOldLog() throws IOException {
        final Path dir = filled("log");
        Files.write(dir.resolve(ResetMarkerDescriptor.TMP_NAME), new byte[] {1, 2, 3}); // marker being written
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertOld(log);
            assertThat(log.recoveryReport().resetCompleted()).isFalse();
        }
        assertThat(Files.exists(dir.resolve(ResetMarkerDescriptor.TMP_NAME))).isFalse();
    }

    private static long nextId(final Path dir) throws IOException {
        final List<Long> ids = SegmentFiles.listIds(dir);
        return ids.get(ids.size() - 1) + 1;
    }

    @Test
    void crashRightAfterTheCommitPoint_isFinishedAtOpen() throws IOException {
        final Path dir = filled("log");
        LogReset.commit(dir, new LogReset.Marker(77, nextId(dir)));
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertResetAt(log, 77);
            assertThat(log.recoveryReport().resetCompleted()).isTrue();
        }
        assertThat(Files.exists(dir.resolve(ResetMarkerDescriptor.FILE_NAME))).isFalse();
        assertThat(TestSupport.segmentFiles(dir)).hasSize(1);
    }

    @Test
    void crashWithTheNewSegmentHalfWritten_isFinishedAtOpen() throws IOException {
        final Path dir = filled("log");
        final long id = nextId(dir);
        LogReset.commit(dir, new LogReset.Marker(77, id));
        Files.write(dir.resolve(SegmentFiles.logName(id)), new byte[10]); // header not complete
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertResetAt(log, 77);
        }
    }

    @Test
    void crashWhileDeletingOldSegments_isFinishedAtOpen() throws IOException {
        final Path dir = filled("log");
        final long id = nextId(dir);
        LogReset.commit(dir, new LogReset.Marker(77, id));
        Segment.create(dir, id, 77, 0, 128, ChannelOpener.DEFAULT).closeQuietly();
        Files.delete(TestSupport.segmentFiles(dir).get(1)); // some old segments already gone
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertResetAt(log, 77);
            assertThat(log.recoveryReport().resetCompleted()).isTrue();
        }
    }

    @Test
    void crashBeforeTheMarkerWasDeleted_isFinishedAtOpen() throws IOException {
        final Path dir = filled("log");
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            log.resetTo(40);
        }
        // Put the marker back as if the crash came after every other step.
        final List<Long> ids = SegmentFiles.listIds(dir);
        LogReset.commit(dir, new LogReset.Marker(40, ids.get(0)));
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertResetAt(log, 40);
        }
    }

    @Test
    void aDamagedMarker_refusesTheLogNamingIt() throws IOException {
        final Path dir = filled("log");
        LogReset.commit(dir, new LogReset.Marker(77, nextId(dir)));
        final Path marker = dir.resolve(ResetMarkerDescriptor.FILE_NAME);
        TestSupport.flipByte(marker, 12);
        assertThatThrownBy(() -> SegmentedLog.open(dir, config(), runtime)).isInstanceOfSatisfying(StorageException.class, e -> {
            assertThat(e.code()).isEqualTo(StorageErrorCode.CORRUPTION);
            assertThat(e.file()).hasValue(marker);
        });
    }
}
