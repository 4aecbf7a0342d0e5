package dev.felix.storage;

import static dev.felix.storage.TestSupport.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The epoch history: which leader epoch wrote which offsets; forced, checksummed, recovered at open. */
class EpochHistoryTest {
    @TempDir
    Path tmp;

    private final StorageRuntime runtime = StorageRuntime.create();

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private static LogConfig config() {
        return LogConfig.builder().segmentBytes(512).indexSpacingBytes(128).fsyncPolicy(FsyncPolicy.onCommit()).build();
    }

    private Path epochFile(final Path dir) {
        return dir.resolve(EpochHistoryDescriptor.FILE_NAME);
    }

    private static void append(final SegmentedLog log, final int n) {
        for (int i = 0; i < n; i++) {
            log.append(payload(log.tailOffset(), 40), 1);
        }
    }

    /** Epoch 1 wrote 0..4, epoch 3 wrote 5..7, epoch 7 wrote nothing, epoch 8 wrote 8..9; tail 10. */
    private SegmentedLog history(final Path dir) {
        final SegmentedLog log = SegmentedLog.open(dir, config(), runtime);
        assertThat(log.lastEpoch()).isEqualTo(-1);
        assertThat(log.endOffsetOf(0)).isEqualTo(-1);
        log.beginEpoch(1);
        append(log, 5);
        log.beginEpoch(3);
        log.beginEpoch(3); // same epoch: nothing to do
        append(log, 3);
        log.beginEpoch(7);
        log.beginEpoch(8);
        append(log, 2);
        return log;
    }

    private static void assertHistory(final SegmentedLog log) {
        assertThat(log.epochHistory()).containsExactly(new EpochEntry(1, 0), new EpochEntry(3, 5), new EpochEntry(7, 8),
            new EpochEntry(8, 8));
        assertThat(log.lastEpoch()).isEqualTo(8);
        for (long o = 0; o < 10; o++) {
            assertThat(log.epochOf(o)).as("epochOf(%d)", o).hasValue(o < 5 ? 1 : o < 8 ? 3 : 8);
        }
        assertThat(log.epochOf(10)).isEmpty();
        assertThat(log.epochOf(-1)).isEmpty();
        assertThat(log.endOffsetOf(1)).isEqualTo(5);
        assertThat(log.endOffsetOf(2)).as("never had: next higher known epoch's start").isEqualTo(5);
        assertThat(log.endOffsetOf(3)).isEqualTo(8);
        assertThat(log.endOffsetOf(7)).as("wrote nothing").isEqualTo(8);
        assertThat(log.endOffsetOf(8)).as("the last epoch ends at the tail").isEqualTo(10);
        assertThat(log.endOffsetOf(0)).as("older than all: the first entry's start").isZero();
        assertThat(log.endOffsetOf(9)).as("newer than anything known").isEqualTo(-1);
    }

    @Test
    void beginEpoch_recordsTheTail_andAnswersEpochQueries_beforeAndAfterReopen() {
        final Path dir = tmp.resolve("log");
        try (SegmentedLog log = history(dir)) {
            assertHistory(log);
        }
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertHistory(log);
        }
        assertThat(LogTools.verify(dir).clean()).isTrue();
    }

    @Test
    void anOlderEpoch_isRefusedTyped_andRecordsNothing() throws IOException {
        final Path dir = tmp.resolve("log");
        try (SegmentedLog log = history(dir)) {
            final byte[] before = Files.readAllBytes(epochFile(dir));
            assertThatThrownBy(() -> log.beginEpoch(5)).isInstanceOfSatisfying(StorageException.class, e -> {
                assertThat(e.code()).isEqualTo(StorageErrorCode.STALE_EPOCH);
                assertThat(e.requested()).hasValue(5);
                assertThat(e.getMessage()).contains("epoch 5").contains("last epoch 8");
            });
            assertThatThrownBy(() -> log.beginEpoch(-1)).isInstanceOfSatisfying(StorageException.class,
                e -> assertThat(e.code()).isEqualTo(StorageErrorCode.INVALID_ARGUMENT));
            assertThat(Files.readAllBytes(epochFile(dir))).isEqualTo(before);
            assertHistory(log);
        }
    }

    @Test
    void truncate_dropsEntriesStartingAtOrAfterTheCut() {
        final Path dir = tmp.resolve("log");
        try (SegmentedLog log = history(dir)) {
            log.truncate(9);
            assertThat(log.epochHistory()).containsExactly(new EpochEntry(1, 0), new EpochEntry(3, 5), new EpochEntry(7, 8),
                new EpochEntry(8, 8));
            log.truncate(6);
            assertThat(log.epochHistory()).containsExactly(new EpochEntry(1, 0), new EpochEntry(3, 5));
            assertThat(log.lastEpoch()).isEqualTo(3);
            assertThat(log.endOffsetOf(3)).isEqualTo(6);
            log.truncate(5);
            assertThat(log.epochHistory()).containsExactly(new EpochEntry(1, 0));
            assertThat(log.endOffsetOf(1)).isEqualTo(5);
            log.beginEpoch(4); // the follower learns the leader's epoch again
            append(log, 1);
            assertThat(log.epochOf(5)).hasValue(4);
        }
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.epochHistory()).containsExactly(new EpochEntry(1, 0), new EpochEntry(4, 5));
        }
    }

    @Test
    void retention_dropsEntriesWhollyBelowTheBase_butKeepsTheOneCoveringIt() {
        final Path dir = tmp.resolve("log");
        try (SegmentedLog log = SegmentedLog.open(dir, config().toBuilder().retentionBytes(1200).build(), runtime)) {
            for (int e = 0; e < 10; e++) {
                log.beginEpoch(e);
                append(log, 3);
            }
            final RetentionResult r = log.enforceRetention();
            assertThat(r.segmentsDeleted()).isPositive();
            final long base = log.baseOffset();
            final List<EpochEntry> h = log.epochHistory();
            assertThat(h.get(0).startOffset()).isLessThanOrEqualTo(base);
            assertThat(h.size() == 1 || h.get(1).startOffset() > base).isTrue();
            assertThat(h.get(h.size() - 1)).isEqualTo(new EpochEntry(9, 27));
            assertThat(log.epochOf(base)).hasValue(base / 3);
            assertThat(h).hasSize((int) (10 - base / 3));
        }
    }

    @Test
    void tornLastEntry_isIgnoredAndCut_withAWarning() throws IOException {
        final Path dir = tmp.resolve("log");
        history(dir).close();
        final Path file = epochFile(dir);
        final long whole = Files.size(file);
        Files.write(file, new byte[] {1, 2, 3, 4, 5, 6, 7}, StandardOpenOption.APPEND); // a partial fifth entry
        try (TestSupport.Capture logs = TestSupport.capture(EpochHistory.class);
             SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertHistory(log);
            assertThat(logs.messages(Level.WARN)).singleElement().asString().contains(file.toString()).contains("torn");
        }
        assertThat(Files.size(file)).isEqualTo(whole);

        // A whole last entry failing its CRC (its append was cut short) is torn too: the epoch before it is last.
        TestSupport.flipByte(file, whole - 3);
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.lastEpoch()).isEqualTo(7);
            assertThat(log.endOffsetOf(7)).isEqualTo(10);
            log.beginEpoch(9);
            assertThat(log.epochHistory()).endsWith(new EpochEntry(7, 8), new EpochEntry(9, 10));
        }
    }

    @Test
    void damageBeforeTheLastEntry_refusesTheLogNamingFileAndPosition() {
        final Path dir = tmp.resolve("log");
        history(dir).close();
        final Path file = epochFile(dir);
        final long entry1 = EpochHistoryDescriptor.entryPosition(1);
        TestSupport.flipByte(file, entry1 + 9);
        assertThatThrownBy(() -> SegmentedLog.open(dir, config(), runtime)).isInstanceOfSatisfying(StorageException.class, e -> {
            assertThat(e.code()).isEqualTo(StorageErrorCode.CORRUPTION);
            assertThat(e.file()).hasValue(file);
            assertThat(e.position()).hasValue(entry1);
            assertThat(e.getMessage()).contains(file.toString()).contains("byte position " + entry1);
        });
        final LogTools.Verification v = LogTools.verify(dir);
        assertThat(v.problems()).extracting(LogTools.Problem::file, LogTools.Problem::position)
            .containsExactly(org.assertj.core.groups.Tuple.tuple(file, entry1));

        TestSupport.flipByte(file, entry1 + 9); // undo; now break the header
        TestSupport.flipByte(file, 2);
        assertThatThrownBy(() -> SegmentedLog.open(dir, config(), runtime)).isInstanceOfSatisfying(StorageException.class, e -> {
            assertThat(e.corruption()).hasValue(CorruptionKind.BAD_MAGIC);
            assertThat(e.file()).hasValue(file);
            assertThat(e.position()).hasValue(0);
        });
    }

    @Test
    void entriesOutOfOrder_areCorruption() throws IOException {
        final Path dir = tmp.resolve("log");
        history(dir).close();
        final ByteBuffer bad = EpochHistory.encode(List.of(new EpochEntry(4, 0), new EpochEntry(2, 3)));
        Files.write(epochFile(dir), java.util.Arrays.copyOf(bad.array(), bad.remaining()));
        assertThatThrownBy(() -> SegmentedLog.open(dir, config(), runtime)).isInstanceOfSatisfying(StorageException.class, e -> {
            assertThat(e.corruption()).hasValue(CorruptionKind.OFFSET_OUT_OF_ORDER);
            assertThat(e.position()).hasValue(EpochHistoryDescriptor.entryPosition(1));
        });
    }

    @Test
    void entriesPastTheRecoveredTail_moveToTheTail() throws IOException {
        final Path dir = tmp.resolve("log");
        history(dir).close();
        // As if epoch 9 began at offset 12 and offsets 10..11 were lost with an unforced tail.
        final ByteBuffer b = EpochHistory.encode(List.of(new EpochEntry(1, 0), new EpochEntry(9, 12)));
        Files.write(epochFile(dir), java.util.Arrays.copyOf(b.array(), b.remaining()));
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.epochHistory()).containsExactly(new EpochEntry(1, 0), new EpochEntry(9, 10));
            assertThat(log.epochOf(9)).hasValue(1);
            append(log, 1);
            assertThat(log.epochOf(10)).isEqualTo(OptionalLong.of(9));
        }
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.epochHistory()).containsExactly(new EpochEntry(1, 0), new EpochEntry(9, 10));
        }
    }

    @Test
    void fileLayout_matchesTheDescriptor() throws IOException {
        final Path dir = tmp.resolve("log");
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            log.beginEpoch(0x0102);
        }
        final byte[] f = Files.readAllBytes(epochFile(dir));
        assertThat(f).hasSize(16 + 24);
        final ByteBuffer b = ByteBuffer.wrap(f);
        assertThat(b.getInt(0)).isEqualTo(0x464C5345);
        assertThat(b.getShort(4)).isEqualTo((short) 1);
        assertThat(b.getLong(16)).isEqualTo(0x0102);
        assertThat(b.getLong(24)).isZero();
        final java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(f, 16, 20);
        assertThat(b.getInt(36)).isEqualTo((int) crc.getValue());
    }
}
