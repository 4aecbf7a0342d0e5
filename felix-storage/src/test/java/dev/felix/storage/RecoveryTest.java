package dev.felix.storage;

import static dev.felix.storage.TestSupport.payload;
import static dev.felix.storage.TestSupport.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Recovery at open on real files: torn tails are repaired and logged, corruption refuses with file and position. */
class RecoveryTest {
    private static final int RECORDS = 60;

    @TempDir
    Path tmp;

    private final StorageRuntime runtime = StorageRuntime.create();
    private Path pristine;

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private static LogConfig config() {
        return LogConfig.builder().segmentBytes(2048).indexSpacingBytes(256).fsyncPolicy(FsyncPolicy.none()).build();
    }

    /** A closed log of {@value #RECORDS} records of 100 bytes, several segments. */
    @BeforeEach
    void buildLog() {
        pristine = tmp.resolve("pristine");
        try (SegmentedLog log = SegmentedLog.open(pristine, config(), runtime)) {
            for (int i = 0; i < RECORDS; i++) {
                log.append(payload(i, 100), 1000 + i);
            }
        }
        assertThat(TestSupport.segmentFiles(pristine)).hasSizeGreaterThan(3);
    }

    private Path copy(final String name) {
        final Path dir = tmp.resolve(name);
        TestSupport.copyDir(pristine, dir);
        return dir;
    }

    private static Path newest(final Path dir) {
        final List<Path> files = TestSupport.segmentFiles(dir);
        return files.get(files.size() - 1);
    }

    private static void assertIntact(final SegmentedLog log, final long upTo) {
        final List<LogRecord> all = readAll(log);
        assertThat(all).hasSize((int) upTo);
        for (int i = 0; i < upTo; i++) {
            assertThat(all.get(i)).isEqualTo(new LogRecord(i, 1000 + i, payload(i, 100)));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 10, 27, 28, 29, 100, 127})
    void tornTail_isCutToTheLastIntactRecord_loggedAndAppendsContinue(final int keptBytesOfLastRecord) {
        final Path dir = copy("torn");
        final Path file = newest(dir);
        final long[] last = TestSupport.records(file).get(TestSupport.records(file).size() - 1);
        assertThat(last[0]).isEqualTo(RECORDS - 1);
        TestSupport.truncateFile(file, last[1] + keptBytesOfLastRecord);

        try (TestSupport.Capture logs = TestSupport.capture(LogRecovery.class);
             SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            final RecoveryReport.TailRepair repair = log.recoveryReport().tailRepair().orElseThrow();
            assertThat(repair.file()).isEqualTo(file);
            assertThat(repair.position()).isEqualTo(last[1]);
            assertThat(repair.bytesCut()).isEqualTo(keptBytesOfLastRecord);
            assertThat(repair.reason()).isEqualTo(CorruptionKind.TRUNCATED);
            assertThat(logs.messages(Level.WARN)).singleElement().asString()
                .contains(file.toString()).contains("byte position " + last[1]).contains("cut " + keptBytesOfLastRecord + " bytes");
            assertThat(log.tailOffset()).isEqualTo(RECORDS - 1);
            assertIntact(log, RECORDS - 1);
            assertThat(log.append(payload(RECORDS - 1, 100), 1000 + RECORDS - 1).firstOffset()).isEqualTo(RECORDS - 1);
            assertIntact(log, RECORDS);
        }
        assertThat(runtime.metrics().recoveryTruncatedBytes()).isEqualTo(keptBytesOfLastRecord);
        // idempotent: a second open finds nothing to repair
        final Map<String, byte[]> before = TestSupport.snapshot(dir);
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.recoveryReport().tailRepair()).isEmpty();
            assertThat(log.recoveryReport().indexesRebuilt()).isZero();
            assertIntact(log, RECORDS);
        }
        assertThat(TestSupport.snapshot(dir)).containsExactlyInAnyOrderEntriesOf(before);
    }

    @Test
    void cleanReopen_changesNoByte() {
        final Path dir = copy("clean");
        final Map<String, byte[]> before = TestSupport.snapshot(dir);
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.recoveryReport().tailRepair()).isEmpty();
            assertThat(log.recoveryReport().abandonedSegmentsRemoved()).isZero();
            assertThat(log.recoveryReport().indexesRebuilt()).isZero();
            assertIntact(log, RECORDS);
        }
        assertThat(TestSupport.snapshot(dir)).containsExactlyInAnyOrderEntriesOf(before);
    }

    @Test
    void badChecksumInAnEarlierRecord_refusesNamingFileAndPosition_evenWithRepairFlag() {
        final Path dir = copy("rot");
        final Path file = newest(dir);
        final List<long[]> recs = TestSupport.records(file);
        assertThat(recs.size()).isGreaterThan(2);
        final long[] victim = recs.get(recs.size() - 2);
        TestSupport.flipByte(file, victim[1] + 40); // inside the payload
        for (final boolean repair : new boolean[] {false, true}) {
            assertThatThrownBy(() -> SegmentedLog.open(dir, config().toBuilder().repairCorruptTail(repair).build(), runtime))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.code()).isEqualTo(StorageErrorCode.CORRUPTION);
                    assertThat(e.corruption()).hasValue(CorruptionKind.RECORD_CHECKSUM);
                    assertThat(e.file()).hasValue(file);
                    assertThat(e.position()).hasValue(victim[1]);
                    assertThat(e.getMessage()).contains(file.toString()).contains("byte position " + victim[1]);
                });
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void corruptLastRecord_isATornTail_cutByDefault(final boolean repairFlag) {
        // Issue 13 item 20: damage after which no valid record follows is a torn tail, whatever the flag says.
        final Path dir = copy("rot-tail-" + repairFlag);
        final Path file = newest(dir);
        final List<long[]> recs = TestSupport.records(file);
        final long[] last = recs.get(recs.size() - 1);
        TestSupport.flipByte(file, last[1] + 60);
        try (TestSupport.Capture logs = TestSupport.capture(LogRecovery.class);
             SegmentedLog log = SegmentedLog.open(dir, config().toBuilder().repairCorruptTail(repairFlag).build(), runtime)) {
            assertThat(log.recoveryReport().tailRepair()).hasValueSatisfying(r -> {
                assertThat(r.reason()).isEqualTo(CorruptionKind.RECORD_CHECKSUM);
                assertThat(r.position()).isEqualTo(last[1]);
                assertThat(r.bytesCut()).isEqualTo(last[2]);
            });
            assertThat(logs.messages(Level.WARN)).singleElement().asString().contains(file.toString())
                .contains("byte position " + last[1]).contains("cut " + last[2] + " bytes");
            assertIntact(log, RECORDS - 1);
        }
    }

    @Test
    void corruptHeaderOfAnEmptyLastRecord_isCutByDefault() throws IOException {
        final Path dir = tmp.resolve("empty-last");
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            log.append(payload(0, 10), 1);
            log.append(new byte[0], 2);
        }
        final Path file = newest(dir);
        final long pos = Files.size(file) - 28;
        TestSupport.flipByte(file, pos + 2); // payload_len byte: header CRC fails, nothing follows
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.tailOffset()).isEqualTo(1);
            assertThat(log.recoveryReport().tailRepair()).hasValueSatisfying(r -> {
                assertThat(r.reason()).isEqualTo(CorruptionKind.RECORD_HEADER_CHECKSUM);
                assertThat(r.position()).isEqualTo(pos);
            });
        }
    }

    @Test
    void damageInASealedSegmentTail_isServedAround_notRefused() {
        // Issue 13 item 21: a flipped byte in a sealed segment found at open (after the last index entry).
        final Path dir = copy("sealed");
        final Path file = TestSupport.segmentFiles(dir).get(1);
        final List<long[]> recs = TestSupport.records(file);
        final long[] last = recs.get(recs.size() - 1);
        TestSupport.flipByte(file, last[1] + 50);
        final long n = last[0];
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.recoveryReport().damage()).singleElement().satisfies(d -> {
                assertThat(d.from()).isEqualTo(n);
                assertThat(d.to()).isEqualTo(n);
                assertThat(d.file()).isEqualTo(file);
                assertThat(d.position()).isEqualTo(last[1]);
            });
            assertThat(readAround(log)).isEqualTo(List.of(n));
        }
    }

    @Test
    void damageInsideASealedSegment_isFoundByVerifyAllOnOpen_andByReads_andServedAround() {
        final Path dir = copy("sealed-mid");
        final Path file = TestSupport.segmentFiles(dir).get(0);
        final long[] first = TestSupport.records(file).get(0); // before the last index entry
        TestSupport.flipByte(file, first[1] + 50);
        try (SegmentedLog log = SegmentedLog.open(dir, config().toBuilder().verifyAllOnOpen(true).build(), runtime)) {
            assertThat(log.recoveryReport().damage()).extracting(ReadResult.Corrupted::from, ReadResult.Corrupted::to,
                ReadResult.Corrupted::position).containsExactly(org.assertj.core.groups.Tuple.tuple(0L, 0L, first[1]));
            assertThat(readAround(log)).isEqualTo(List.of(0L));
        }
        // The default open trusts a valid index for all but the segment's tail (cost independent of size),
        // but a read never returns an unverified record: it finds the damage and serves around it.
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.recoveryReport().damage()).isEmpty();
            assertThat(log.read(0, 10, 10_000)).isInstanceOfSatisfying(ReadResult.Corrupted.class, c -> {
                assertThat(c.from()).isZero();
                assertThat(c.to()).isZero();
                assertThat(c.kind()).isEqualTo(CorruptionKind.RECORD_CHECKSUM);
                assertThat(c.file()).isEqualTo(file);
                assertThat(c.position()).isEqualTo(first[1]);
                assertThatThrownBy(c::recordsOrThrow).isInstanceOfSatisfying(StorageException.class,
                    e -> assertThat(e.corruption()).hasValue(CorruptionKind.RECORD_CHECKSUM));
            });
            assertThat(log.read(1, 10, 10_000).recordsOrThrow()).isNotEmpty();
            assertThat(readAround(log)).isEqualTo(List.of(0L));
        }
    }

    /** Reads the whole log following nextOffset(); checks every record served; returns the offsets reported damaged. */
    private static List<Long> readAround(final SegmentedLog log) {
        final List<Long> damaged = new java.util.ArrayList<>();
        long from = log.baseOffset();
        while (from < log.tailOffset()) {
            final ReadResult r = log.read(from, 7, 100_000);
            if (r instanceof ReadResult.Corrupted) {
                final ReadResult.Corrupted c = (ReadResult.Corrupted) r;
                assertThat(c.from()).isEqualTo(from);
                for (long o = c.from(); o <= c.to(); o++) {
                    damaged.add(o);
                }
            } else {
                final List<LogRecord> got = r.recordsOrThrow();
                assertThat(got).isNotEmpty();
                for (final LogRecord rec : got) {
                    assertThat(rec).isEqualTo(new LogRecord(rec.offset(), 1000 + rec.offset(), payload(rec.offset(), 100)));
                }
                assertThat(got.get(0).offset()).isEqualTo(from);
            }
            from = r.nextOffset();
        }
        return damaged;
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 5, 7, 12, 24})
    void damagedSegmentHeader_refusesAtPositionZero(final int byteInHeader) {
        for (final int which : new int[] {0, -1}) { // a sealed segment and the active one
            final Path dir = copy("header-" + byteInHeader + "-" + which);
            final List<Path> files = TestSupport.segmentFiles(dir);
            final Path file = files.get(which < 0 ? files.size() - 1 : which);
            TestSupport.flipByte(file, byteInHeader);
            assertThatThrownBy(() -> SegmentedLog.open(dir, config().toBuilder().repairCorruptTail(true).build(), runtime))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.code()).isEqualTo(StorageErrorCode.CORRUPTION);
                    assertThat(e.file()).hasValue(file);
                    assertThat(e.position()).hasValue(0);
                    assertThat(e.getMessage()).contains(file.toString());
                });
        }
    }

    @Test
    void missingMiddleSegment_breaksTheChain_refuses() throws IOException {
        final Path dir = copy("gap");
        final Path gone = TestSupport.segmentFiles(dir).get(1);
        Files.delete(gone);
        final Path next = TestSupport.segmentFiles(dir).get(1);
        assertThatThrownBy(() -> SegmentedLog.open(dir, config(), runtime))
            .isInstanceOfSatisfying(StorageException.class, e -> {
                assertThat(e.corruption()).hasValue(CorruptionKind.OFFSET_OUT_OF_ORDER);
                assertThat(e.file()).hasValue(next);
                assertThat(e.position()).hasValue(8);
            });
    }

    @Test
    void truncatedSealedSegment_losesOnlyItsCutRecord() {
        final Path dir = copy("short-sealed");
        final Path file = TestSupport.segmentFiles(dir).get(1);
        final List<long[]> recs = TestSupport.records(file);
        final long[] last = recs.get(recs.size() - 1);
        TestSupport.truncateFile(file, last[1] + 5);
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.recoveryReport().damage()).singleElement().satisfies(d -> {
                assertThat(d.kind()).isEqualTo(CorruptionKind.TRUNCATED);
                assertThat(d.file()).isEqualTo(file);
                assertThat(d.from()).isEqualTo(last[0]);
                assertThat(d.to()).isEqualTo(last[0]); // bounded by the next segment's base offset
            });
            assertThat(readAround(log)).isEqualTo(List.of(last[0]));
            assertThat(log.tailOffset()).isEqualTo(RECORDS);
        }
    }

    @Test
    void indexDeletedOrGarbage_isRebuiltSilently_byteIdentical() throws IOException {
        final Path dir = copy("index");
        final Map<String, byte[]> before = TestSupport.snapshot(dir);
        final List<Path> files = TestSupport.segmentFiles(dir);
        Files.delete(dir.resolve(files.get(0).getFileName().toString().replace(".log", ".index")));
        Files.write(dir.resolve(files.get(1).getFileName().toString().replace(".log", ".index")), new byte[] {1, 2, 3, 4, 5});
        final byte[] wrongEntries = before.get(files.get(2).getFileName().toString().replace(".log", ".index")).clone();
        wrongEntries[24 + 15] ^= 0x10; // first entry's position: structurally invalid
        Files.write(dir.resolve(files.get(2).getFileName().toString().replace(".log", ".index")), wrongEntries);
        Files.delete(dir.resolve(newest(dir).getFileName().toString().replace(".log", ".index")));

        try (TestSupport.Capture logs = TestSupport.capture(LogRecovery.class);
             SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.recoveryReport().indexesRebuilt()).isEqualTo(4);
            assertThat(logs.messages(Level.WARN)).isEmpty();
            assertIntact(log, RECORDS);
        }
        assertThat(TestSupport.snapshot(dir)).containsExactlyInAnyOrderEntriesOf(before);
    }

    @Test
    void staleIndexEntryPointingElsewhere_isDetectedAndRebuilt() throws IOException {
        final Path dir = copy("stale");
        final Map<String, byte[]> before = TestSupport.snapshot(dir);
        final Path file = TestSupport.segmentFiles(dir).get(0);
        final Path index = dir.resolve(file.getFileName().toString().replace(".log", ".index"));
        final byte[] idx = Files.readAllBytes(index);
        final int entries = (idx.length - 24) / 16;
        assertThat(entries).isGreaterThan(1);
        // last entry: keep it ascending but make its position point into the middle of a record
        final java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(idx);
        final int at = 24 + 16 * (entries - 1) + 8;
        b.putLong(at, b.getLong(at) + 3);
        Files.write(index, idx);
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertIntact(log, RECORDS);
        }
        assertThat(TestSupport.snapshot(dir)).containsExactlyInAnyOrderEntriesOf(before);
    }

    @Test
    void abandonedRoll_headerlessOrOffChain_isRemoved() throws IOException {
        final Path dir = copy("abandoned");
        final long nextId = TestSupport.segmentFiles(dir).size();
        Files.write(dir.resolve(SegmentFiles.logName(nextId)), new byte[10]);
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.recoveryReport().abandonedSegmentsRemoved()).isEqualTo(1);
            assertIntact(log, RECORDS);
        }
        assertThat(Files.exists(dir.resolve(SegmentFiles.logName(nextId)))).isFalse();

        // a header-only newest segment whose base does not continue the chain (interrupted truncate)
        Files.write(dir.resolve(SegmentFiles.logName(nextId)), new SegmentHeader(5, 0).encode().array());
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.recoveryReport().abandonedSegmentsRemoved()).isEqualTo(1);
            assertThat(log.tailOffset()).isEqualTo(RECORDS);
            assertThat(log.append(payload(RECORDS, 100), 1000 + RECORDS).firstOffset()).isEqualTo(RECORDS);
        }
    }

    @Test
    void firstSegmentCreationInterrupted_startsFresh() throws IOException {
        final Path dir = tmp.resolve("fresh");
        Files.createDirectories(dir);
        Files.write(dir.resolve(SegmentFiles.logName(0)), new byte[7]);
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.tailOffset()).isZero();
            assertThat(log.recoveryReport().created()).isTrue();
        }
    }

    @Test
    void ignoresUnrelatedFilesAndSortsNumerically() throws IOException {
        final Path dir = copy("names");
        Files.write(dir.resolve("notes.txt"), new byte[] {1});
        Files.write(dir.resolve("abc.log"), new byte[] {1});
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertIntact(log, RECORDS);
        }
    }

    @Test
    void smallerMaxPayloadThanStored_isReportedAsCorruption() {
        final Path dir = copy("limit");
        assertThatThrownBy(() -> SegmentedLog.open(dir, config().toBuilder().maxPayloadBytes(50).verifyAllOnOpen(true).build(), runtime))
            .isInstanceOfSatisfying(StorageException.class,
                e -> assertThat(e.corruption()).hasValue(CorruptionKind.RECORD_TOO_LARGE));
    }
}
