package dev.felix.storage;

import static dev.felix.storage.TestSupport.batch;
import static dev.felix.storage.TestSupport.payload;
import static dev.felix.storage.TestSupport.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Append/read behaviour of one log across many segment rolls. */
class SegmentedLogTest {
    @TempDir
    Path tmp;

    private final StorageRuntime runtime = StorageRuntime.create();

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private LogConfig small() {
        return LogConfig.builder().segmentBytes(1024).indexSpacingBytes(128).fsyncPolicy(FsyncPolicy.none()).build();
    }

    @Test
    void newLog_isEmptyAtOffsetZero() {
        try (SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), small(), runtime)) {
            assertThat(log.baseOffset()).isZero();
            assertThat(log.tailOffset()).isZero();
            assertThat(log.durableOffset()).isZero();
            assertThat(log.recoveryReport().created()).isTrue();
            assertThat(log.read(0, 10, 1000)).isEqualTo(new ReadResult.Records(List.of(), 0, 0));
        }
    }

    @Test
    void appendRead_roundTripsAcrossManyRolls_andAfterReopen() {
        final Path dir = tmp.resolve("log");
        final Random rnd = new Random(42);
        final List<LogRecord> expected = new ArrayList<>();
        try (SegmentedLog log = SegmentedLog.open(dir, small(), runtime)) {
            long next = 0;
            for (int b = 0; b < 300; b++) {
                final int n = 1 + rnd.nextInt(5);
                final int size = rnd.nextInt(120);
                final long ts = 1_000_000L + b;
                final AppendResult r = log.append(batch(next, n, size), ts);
                assertThat(r).isEqualTo(new AppendResult(next, next + n - 1));
                for (int i = 0; i < n; i++) {
                    expected.add(new LogRecord(next + i, ts, payload(next + i, size)));
                }
                next += n;
            }
            assertThat(log.segmentCount()).isGreaterThan(20);
            assertThat(readAll(log)).isEqualTo(expected);
        }
        try (SegmentedLog log = SegmentedLog.open(dir, small(), runtime)) {
            assertThat(log.recoveryReport().tailRepair()).isEmpty();
            assertThat(log.tailOffset()).isEqualTo(expected.size());
            assertThat(log.durableOffset()).isEqualTo(expected.size());
            assertThat(readAll(log)).isEqualTo(expected);
            // appends continue at the tail after reopen
            assertThat(log.append(payload(expected.size(), 10), 5).firstOffset()).isEqualTo(expected.size());
        }
    }

    @Test
    void batch_isNeverSplitAcrossSegments() {
        final Path dir = tmp.resolve("log");
        try (SegmentedLog log = SegmentedLog.open(dir, small(), runtime)) {
            long next = 0;
            final List<long[]> batches = new ArrayList<>();
            for (int b = 0; b < 100; b++) {
                final int n = 1 + b % 7;
                final AppendResult r = log.append(batch(next, n, 50), b);
                batches.add(new long[] {r.firstOffset(), r.lastOffset()});
                next += n;
            }
            final LogTools.Inspection inspection = LogTools.inspect(dir);
            for (final long[] b : batches) {
                final long segmentsHoldingFirst = inspection.logs().get(0).segments().stream()
                    .filter(s -> s.baseOffset() <= b[0] && b[0] <= s.lastOffset())
                    .filter(s -> s.baseOffset() <= b[1] && b[1] <= s.lastOffset()).count();
                assertThat(segmentsHoldingFirst).as("batch %d..%d in one segment", b[0], b[1]).isEqualTo(1);
            }
            // every sealed segment stays within segmentBytes (no single batch here exceeds it)
            inspection.logs().get(0).segments().forEach(s -> assertThat(s.bytes()).isLessThanOrEqualTo(1024));
        }
    }

    @Test
    void recordLargerThanASegment_getsItsOwnSegment() {
        final Path dir = tmp.resolve("log");
        try (SegmentedLog log = SegmentedLog.open(dir, small(), runtime)) {
            log.append(payload(0, 100), 1);
            final AppendResult big = log.append(payload(1, 5000), 2);
            log.append(payload(2, 100), 3);
            assertThat(big.firstOffset()).isEqualTo(1);
            assertThat(log.segmentCount()).isEqualTo(3);
            final List<LogRecord> all = readAll(log);
            assertThat(all).extracting(LogRecord::offset).containsExactly(0L, 1L, 2L);
            assertThat(all.get(1).payload()).isEqualTo(payload(1, 5000));
            // a record larger than the byte budget is still readable on its own
            assertThat(log.read(1, 10, 10).recordsOrThrow()).extracting(LogRecord::offset).containsExactly(1L);
        }
    }

    @Test
    void read_budgetStopsTheWholeReadAtTheFirstRefusedRecord() {
        try (SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), small(), runtime)) {
            // sizes 10, 10, 500, 10 with segments of 1 KiB; offset 2 is large
            log.append(payload(0, 10), 1);
            log.append(payload(1, 10), 1);
            log.append(payload(2, 500), 1);
            log.append(payload(3, 10), 1);
            final ReadResult.Records r = (ReadResult.Records) log.read(0, 100, 100);
            assertThat(r.records()).extracting(LogRecord::offset).containsExactly(0L, 1L);
            assertThat(r.nextOffset()).isEqualTo(2);
            assertThat(r.payloadBytes()).isEqualTo(20);
            assertThat(log.read(0, 2, Long.MAX_VALUE).recordsOrThrow()).hasSize(2);
            assertThat(log.read(3, 100, 0).recordsOrThrow()).extracting(LogRecord::offset).containsExactly(3L);
        }
    }

    @Test
    void read_pastTailIsEmpty_andArgumentsAreChecked() {
        try (SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), small(), runtime)) {
            log.append(batch(0, 3, 5), 1);
            assertThat(log.read(3, 10, 100).recordsOrThrow()).isEmpty();
            assertThat(log.read(99, 10, 100).recordsOrThrow()).isEmpty();
            assertThatThrownBy(() -> log.read(-1, 1, 1)).isInstanceOfSatisfying(StorageException.class,
                e -> assertThat(e.code()).isEqualTo(StorageErrorCode.INVALID_ARGUMENT));
            assertThatThrownBy(() -> log.read(0, 0, 1)).isInstanceOf(StorageException.class);
        }
    }

    @Test
    void read_isCappedByMaxRecordsPerRead() {
        final LogConfig cfg = small().toBuilder().maxRecordsPerRead(3).build();
        try (SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), cfg, runtime)) {
            log.append(batch(0, 10, 5), 1);
            assertThat(log.read(0, 100, Long.MAX_VALUE).recordsOrThrow()).hasSize(3);
        }
    }

    @Test
    void append_rejectsBadBatches() {
        final LogConfig cfg = small().toBuilder().maxPayloadBytes(100).build();
        try (SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), cfg, runtime)) {
            assertThatThrownBy(() -> log.append(List.of(), 1)).isInstanceOfSatisfying(StorageException.class,
                e -> assertThat(e.code()).isEqualTo(StorageErrorCode.INVALID_ARGUMENT));
            assertThatThrownBy(() -> log.append(new byte[101], 1)).isInstanceOfSatisfying(StorageException.class, e -> {
                assertThat(e.code()).isEqualTo(StorageErrorCode.RECORD_TOO_LARGE);
                assertThat(e.requested()).hasValue(101);
            });
            final List<byte[]> withNull = new ArrayList<>();
            withNull.add(null);
            assertThatThrownBy(() -> log.append(withNull, 1)).isInstanceOf(StorageException.class);
            assertThat(log.tailOffset()).isZero();
            assertThat(runtime.metrics().appendFailures()).isEqualTo(3);
        }
    }

    @Test
    void closedLog_refusesWork() {
        final SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), small(), runtime);
        log.append(payload(0, 5), 1);
        log.close();
        log.close(); // idempotent
        assertThat(log.durableOffset()).isEqualTo(1); // close flushed
        assertThatThrownBy(() -> log.append(payload(1, 5), 1)).isInstanceOfSatisfying(StorageException.class,
            e -> assertThat(e.code()).isEqualTo(StorageErrorCode.CLOSED));
        assertThatThrownBy(() -> log.read(0, 1, 1)).isInstanceOfSatisfying(StorageException.class,
            e -> assertThat(e.code()).isEqualTo(StorageErrorCode.CLOSED));
    }

    @Test
    void concurrentAppendsAndReads_seeContiguousCompleteRecords() throws Exception {
        final LogConfig cfg = LogConfig.builder().segmentBytes(8 * 1024).fsyncPolicy(FsyncPolicy.none()).build();
        try (SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), cfg, runtime)) {
            final int writers = 4;
            final int perWriter = 2000;
            final List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                final int id = w;
                threads.add(new Thread(() -> {
                    for (int i = 0; i < perWriter; i++) {
                        final byte[] p = ("w" + id + "-" + i).getBytes();
                        log.append(List.of(p, p), id);
                    }
                }));
            }
            threads.forEach(Thread::start);
            long from = 0;
            final long total = (long) writers * perWriter * 2;
            final int[] lastSeen = new int[writers];
            java.util.Arrays.fill(lastSeen, -1);
            while (from < total) {
                for (final LogRecord r : log.read(from, 500, 1 << 20).recordsOrThrow()) {
                    assertThat(r.offset()).isEqualTo(from);
                    final String[] parts = new String(r.payload()).split("-");
                    final int w = Integer.parseInt(parts[0].substring(1));
                    final int i = Integer.parseInt(parts[1]);
                    // each batch writes the same payload twice, back to back: the pair is never torn apart
                    if (from % 2 == 0) {
                        assertThat(i).isGreaterThan(lastSeen[w]);
                        lastSeen[w] = i;
                    } else {
                        assertThat(i).isEqualTo(lastSeen[w]);
                    }
                    from++;
                }
            }
            for (final Thread t : threads) {
                t.join();
            }
            assertThat(log.tailOffset()).isEqualTo(total);
        }
    }

    @Test
    void files_areNamedBySegmentIdAndHeadersHoldBaseOffsets() throws Exception {
        final Path dir = tmp.resolve("log");
        try (SegmentedLog log = SegmentedLog.open(dir, small(), runtime)) {
            for (int i = 0; i < 30; i++) {
                log.append(payload(i, 100), 1);
            }
        }
        final List<Path> files = TestSupport.segmentFiles(dir);
        assertThat(files.get(0).getFileName().toString()).isEqualTo("00000000000000000000.log");
        assertThat(files.get(1).getFileName().toString()).isEqualTo("00000000000000000001.log");
        assertThat(Files.exists(dir.resolve("00000000000000000001.index"))).isTrue();
        final byte[] h = TestSupport.read(files.get(1));
        assertThat(java.nio.ByteBuffer.wrap(h).getLong(8)).isEqualTo(LogTools.inspect(dir).logs().get(0).segments().get(1).baseOffset());
        assertThat(runtime.metrics().segmentsRolled()).isEqualTo(files.size() - 1);
    }
}
