package dev.felix.storage;

import static dev.felix.storage.TestSupport.payload;
import static dev.felix.storage.TestSupport.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13 item 20, with the default configuration: damage in the newest segment after which no valid record
 * follows (zeros as a power loss leaves, random garbage, a partial record and zeros) is a torn tail, cut and
 * logged, and everything before it is served; damage followed by a valid record still refuses the log.
 */
class TornTailTest {
    private static final int RECORDS = 40;

    @TempDir
    Path tmp;

    private final StorageRuntime runtime = StorageRuntime.create();
    private Path dir;
    private Path newest;
    private long cleanLength;

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private static LogConfig config() {
        return LogConfig.builder().segmentBytes(2048).indexSpacingBytes(256).fsyncPolicy(FsyncPolicy.none()).build();
    }

    @BeforeEach
    void buildLog() throws IOException {
        dir = tmp.resolve("log");
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            for (int i = 0; i < RECORDS; i++) {
                log.append(payload(i, 100), 1000 + i);
            }
        }
        final List<Path> files = TestSupport.segmentFiles(dir);
        newest = files.get(files.size() - 1);
        cleanLength = Files.size(newest);
        assertThat(TestSupport.records(newest)).hasSizeGreaterThan(3);
    }

    private void assertServedAndCut(final long cutAt, final long bytesCut, final long records) {
        assertServedAndCut(cutAt, bytesCut, records, List.of());
    }

    /** {@code verifyCodes}: the problems verify must still report afterwards (the writer history remembers). */
    private void assertServedAndCut(final long cutAt, final long bytesCut, final long records,
                                    final List<String> verifyCodes) {
        try (TestSupport.Capture logs = TestSupport.capture(LogRecovery.class);
             SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            final RecoveryReport.TailRepair repair = log.recoveryReport().tailRepair().orElseThrow();
            assertThat(repair.file()).isEqualTo(newest);
            assertThat(repair.position()).isEqualTo(cutAt);
            assertThat(repair.bytesCut()).isEqualTo(bytesCut);
            assertThat(logs.messages(Level.WARN)).singleElement().asString().contains(newest.toString())
                .contains("byte position " + cutAt).contains("cut " + bytesCut + " bytes");
            final List<LogRecord> all = readAll(log);
            assertThat(all).hasSize((int) records);
            for (int i = 0; i < records; i++) {
                assertThat(all.get(i)).isEqualTo(new LogRecord(i, 1000 + i, payload(i, 100)));
            }
            assertThat(log.append(payload(records, 100), 1000 + records).firstOffset()).isEqualTo(records);
        }
        final Map<String, byte[]> before = TestSupport.snapshot(dir);
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.recoveryReport().tailRepair()).isEmpty();
            assertThat(log.tailOffset()).isEqualTo(records + 1);
        }
        assertThat(TestSupport.snapshot(dir)).containsExactlyInAnyOrderEntriesOf(before);
        assertThat(LogTools.verify(dir).problems()).extracting(LogTools.Problem::code).isEqualTo(verifyCodes);
    }

    @Test
    void fourKibOfZeros_afterTheLastRecord_isCut() throws IOException {
        Files.write(newest, new byte[4096], StandardOpenOption.APPEND);
        final LogTools.Verification v = LogTools.verify(dir);
        assertThat(v.problems()).singleElement().satisfies(p -> {
            assertThat(p.position()).isEqualTo(cleanLength);
            assertThat(p.message()).contains("torn tail").contains("open cuts it");
        });
        assertServedAndCut(cleanLength, 4096, RECORDS);
    }

    @Test
    void oneHundredRandomBytes_afterTheLastRecord_areCut() throws IOException {
        final byte[] garbage = new byte[100];
        new Random(13).nextBytes(garbage);
        Files.write(newest, garbage, StandardOpenOption.APPEND);
        assertServedAndCut(cleanLength, 100, RECORDS);
    }

    @Test
    void aPartialLastRecordFollowedByZeros_isCut() throws IOException {
        final List<long[]> recs = TestSupport.records(newest);
        final long[] last = recs.get(recs.size() - 1);
        TestSupport.truncateFile(newest, last[1] + 40); // the header and 12 payload bytes made it
        Files.write(newest, new byte[4096], StandardOpenOption.APPEND);
        // A record acknowledged before a clean close is gone: the writer history shows the log changed between
        // the session that closed at offset 40 and the one that began writing at 39.
        assertServedAndCut(last[1], 40 + 4096, RECORDS - 1, List.of("LOG_CHANGED_BETWEEN_WRITERS"));
    }

    @Test
    void aZeroedRecordInTheMiddle_followedByValidRecords_isStillRefused() {
        final List<long[]> recs = TestSupport.records(newest);
        final long[] victim = recs.get(1);
        final long[] follower = recs.get(2);
        for (int i = 0; i < 28; i++) { // its header: nothing of its length survives
            zero(newest, victim[1] + i);
        }
        assertThatThrownBy(() -> SegmentedLog.open(dir, config().toBuilder().repairCorruptTail(true).build(), runtime))
            .isInstanceOfSatisfying(StorageException.class, e -> {
                assertThat(e.code()).isEqualTo(StorageErrorCode.CORRUPTION);
                assertThat(e.corruption()).hasValue(CorruptionKind.RECORD_HEADER_CHECKSUM);
                assertThat(e.file()).hasValue(newest);
                assertThat(e.position()).hasValue(victim[1]);
                assertThat(e.getMessage()).contains(newest.toString()).contains("byte position " + victim[1])
                    .contains("offset " + follower[0] + " at byte position " + follower[1]).contains("not a torn tail");
            });
        final LogTools.Verification v = LogTools.verify(dir);
        assertThat(v.problems()).singleElement().satisfies(p -> assertThat(p.message()).contains("open refuses"));
    }

    private static void zero(final Path file, final long position) {
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.allocate(1), position);
        } catch (final IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
