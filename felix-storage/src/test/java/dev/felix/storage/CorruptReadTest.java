package dev.felix.storage;

import static dev.felix.storage.TestSupport.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13 item 21: damage in a sealed segment costs only the damaged records. Every intact record stays
 * readable (earlier segments included); a read reaching the damage gets the records before it, the read from
 * the damaged offset gets {@link ReadResult.Corrupted} with the exact range, the next read continues after it;
 * the range is logged once and counted once.
 */
class CorruptReadTest {
    private static final int RECORDS = 80;

    @TempDir
    Path tmp;

    private final StorageRuntime runtime = StorageRuntime.create();
    private Path dir;
    private Path sealed;
    private List<long[]> recs;

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private static LogConfig config() {
        return LogConfig.builder().segmentBytes(2048).indexSpacingBytes(512).fsyncPolicy(FsyncPolicy.none()).build();
    }

    /** 80 records of 100 bytes (about 15 per segment); the damage goes into the third segment (sealed). */
    @BeforeEach
    void buildLog() {
        dir = tmp.resolve("log");
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            for (int i = 0; i < RECORDS; i++) {
                log.append(payload(i, 100), 1000 + i);
            }
        }
        final List<Path> files = TestSupport.segmentFiles(dir);
        assertThat(files).hasSizeGreaterThan(4);
        sealed = files.get(2);
        recs = TestSupport.records(sealed);
    }

    private static LogRecord expected(final long offset) {
        return new LogRecord(offset, 1000 + offset, payload(offset, 100));
    }

    @Test
    void flippedPayloadByte_costsExactlyThatRecord() {
        final long[] victim = recs.get(3); // before the segment's last index entry: found by reads, not at open
        final long n = victim[0];
        TestSupport.flipByte(sealed, victim[1] + 28 + 50);
        try (TestSupport.Capture errors = TestSupport.capture(SegmentedLog.class);
             SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.recoveryReport().damage()).isEmpty();
            // One big read from 0: every record of the earlier (intact) segments and of this one up to N-1.
            final ReadResult first = log.read(0, 10_000, Long.MAX_VALUE);
            assertThat(first).isInstanceOf(ReadResult.Records.class);
            assertThat(first.recordsOrThrow()).hasSize((int) n);
            for (int i = 0; i < n; i++) {
                assertThat(first.recordsOrThrow().get(i)).isEqualTo(expected(i));
            }
            assertThat(first.nextOffset()).isEqualTo(n);
            // From N: the damaged range, then everything after it.
            final ReadResult damaged = log.read(n, 100, Long.MAX_VALUE);
            assertThat(damaged).isInstanceOfSatisfying(ReadResult.Corrupted.class, c -> {
                assertThat(c.from()).isEqualTo(n);
                assertThat(c.to()).isEqualTo(n);
                assertThat(c.count()).isEqualTo(1);
                assertThat(c.kind()).isEqualTo(CorruptionKind.RECORD_CHECKSUM);
                assertThat(c.file()).isEqualTo(sealed);
                assertThat(c.position()).isEqualTo(victim[1]);
                assertThatThrownBy(c::recordsOrThrow).isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.code()).isEqualTo(StorageErrorCode.CORRUPTION);
                    assertThat(e.file()).hasValue(sealed);
                    assertThat(e.position()).hasValue(victim[1]);
                });
            });
            assertThat(damaged.nextOffset()).isEqualTo(n + 1);
            final ReadResult after = log.read(n + 1, 10_000, Long.MAX_VALUE);
            assertThat(after.recordsOrThrow()).hasSize((int) (RECORDS - n - 1));
            assertThat(after.recordsOrThrow().get(0)).isEqualTo(expected(n + 1));
            // Reads that start before the damage with a small budget, or past it, are unaffected.
            assertThat(log.read(n - 2, 2, Long.MAX_VALUE).recordsOrThrow()).containsExactly(expected(n - 2), expected(n - 1));
            assertThat(log.read(n + 3, 1, Long.MAX_VALUE).recordsOrThrow()).containsExactly(expected(n + 3));
            for (int i = 0; i < 5; i++) {
                assertThat(log.read(n, 1, 1)).isInstanceOf(ReadResult.Corrupted.class);
                assertThat(log.read(n - 5, 100, Long.MAX_VALUE).nextOffset()).isEqualTo(n);
            }
            assertThat(runtime.metrics().corruptRanges()).as("counted once").isEqualTo(1);
            assertThat(runtime.metrics().corruptOffsets()).isEqualTo(1);
            assertThat(errors.messages(Level.ERROR)).as("logged once").singleElement().asString()
                .contains(sealed.toString()).contains("byte position " + victim[1])
                .contains("offsets " + n + ".." + n).contains("continue at offset " + (n + 1));
            assertThat(log.appendAt(RECORDS, List.of(payload(RECORDS, 100)), new long[] {1}).firstOffset())
                .as("the log keeps taking appends").isEqualTo(RECORDS);
        }
    }

    @Test
    void damagedHeader_spanningRecords_costsTheTrueRange() {
        // Zero 200 bytes from inside record 4's header: records 4, 5 (128 bytes each) are hit; 6 is intact.
        final long[] r4 = recs.get(4);
        final long[] r6 = recs.get(6);
        for (long p = r4[1] + 2; p < r4[1] + 202; p++) {
            TestSupport.flipByte(sealed, p);
        }
        assertThat(r4[1] + 202).isLessThanOrEqualTo(r6[1]);
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.read(0, 10_000, Long.MAX_VALUE).nextOffset()).isEqualTo(r4[0]);
            assertThat(log.read(r4[0], 10, 10_000)).isInstanceOfSatisfying(ReadResult.Corrupted.class, c -> {
                assertThat(c.from()).isEqualTo(r4[0]);
                assertThat(c.to()).isEqualTo(r6[0] - 1);
                assertThat(c.kind()).isEqualTo(CorruptionKind.RECORD_HEADER_CHECKSUM);
                assertThat(c.position()).isEqualTo(r4[1]);
            });
            // A read starting inside the range reports from where it asked.
            assertThat(log.read(r4[0] + 1, 10, 10_000)).isInstanceOfSatisfying(ReadResult.Corrupted.class, c -> {
                assertThat(c.from()).isEqualTo(r4[0] + 1);
                assertThat(c.to()).isEqualTo(r6[0] - 1);
            });
            assertThat(log.read(r6[0], 1, 10_000).recordsOrThrow()).containsExactly(expected(r6[0]));
            assertThat(readAround(log)).isEqualTo(List.of(r4[0], r4[0] + 1));
        }
    }

    @Test
    void damageFoundAtOpen_servesTheSameWay() {
        final long[] victim = recs.get(3);
        TestSupport.flipByte(sealed, victim[1] + 28 + 50);
        try (SegmentedLog log = SegmentedLog.open(dir, config().toBuilder().verifyAllOnOpen(true).build(), runtime)) {
            assertThat(log.recoveryReport().damage()).extracting(ReadResult.Corrupted::from, ReadResult.Corrupted::to)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(victim[0], victim[0]));
            assertThat(runtime.metrics().corruptRanges()).isEqualTo(1);
            assertThat(readAround(log)).isEqualTo(List.of(victim[0]));
            assertThat(runtime.metrics().corruptRanges()).isEqualTo(1);
        }
    }

    @Test
    void concurrentReaders_findTheRangeOnce() throws Exception {
        final long[] victim = recs.get(2);
        TestSupport.flipByte(sealed, victim[1] + 28 + 7);
        final ExecutorService pool = Executors.newFixedThreadPool(4);
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            final List<Future<List<Long>>> runs = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                runs.add(pool.submit(() -> {
                    final List<Long> damaged = new ArrayList<>();
                    for (int i = 0; i < 20; i++) {
                        damaged.addAll(readAround(log));
                    }
                    return damaged;
                }));
            }
            for (final Future<List<Long>> f : runs) {
                assertThat(f.get(60, TimeUnit.SECONDS)).hasSize(20).containsOnly(victim[0]);
            }
            assertThat(runtime.metrics().corruptRanges()).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void truncateJustAfterDamagedRecords_cutsWhereTheDamageStarts() {
        final long[] victim = recs.get(3);
        for (long p = victim[1] + 1; p < victim[1] + 5; p++) {
            TestSupport.flipByte(sealed, p); // header: the length cannot be trusted
        }
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            log.truncate(victim[0] + 1);
            assertThat(log.tailOffset()).as("record %d cannot be kept", victim[0]).isEqualTo(victim[0]);
            assertThat(TestSupport.readAll(log)).hasSize((int) victim[0]);
            assertThat(log.append(payload(victim[0], 100), 1000 + victim[0]).firstOffset()).isEqualTo(victim[0]);
        }
        assertThat(LogTools.verify(dir).problems()).isEmpty();
    }

    /** Follows nextOffset() from the base to the tail checking every record served; returns the damaged offsets. */
    private static List<Long> readAround(final SegmentedLog log) {
        final List<Long> damaged = new ArrayList<>();
        long from = log.baseOffset();
        while (from < log.tailOffset()) {
            final ReadResult r = log.read(from, 9, 5_000);
            if (r instanceof ReadResult.Corrupted) {
                for (long o = ((ReadResult.Corrupted) r).from(); o <= ((ReadResult.Corrupted) r).to(); o++) {
                    damaged.add(o);
                }
            } else {
                for (final LogRecord rec : r.recordsOrThrow()) {
                    assertThat(rec).isEqualTo(expected(rec.offset()));
                }
                assertThat(r.recordsOrThrow().get(0).offset()).isEqualTo(from);
            }
            from = r.nextOffset();
        }
        return damaged;
    }
}
