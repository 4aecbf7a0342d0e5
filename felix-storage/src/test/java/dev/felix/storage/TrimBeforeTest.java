package dev.felix.storage;

import static dev.felix.storage.TestSupport.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.testing.ManualClock;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link SegmentedLog#trimBefore}: whole sealed segments wholly below the offset, never the active one. */
class TrimBeforeTest {
    @TempDir
    Path tmp;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final StorageRuntime runtime = StorageRuntime.builder().clock(clock).build();

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private static LogConfig config() {
        // 100-byte payloads take 128 bytes on disk: 7 records per 1024-byte segment (32-byte header).
        return LogConfig.builder().segmentBytes(1024).fsyncPolicy(FsyncPolicy.none()).build();
    }

    private static void fill(final SegmentedLog log, final int records) {
        for (int i = 0; i < records; i++) {
            log.append(payload(i, 100), 0);
        }
    }

    @Test
    void trimBefore_dropsOnlySegmentsWhollyBelow_andTheBaseSurvivesRestart() {
        final Path dir = tmp.resolve("log");
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            fill(log, 40); // segments start at 0, 7, 14, 21, 28, 35 (active)
            assertThat(log.segmentCount()).isEqualTo(6);

            assertThat(log.trimBefore(6).segmentsDeleted()).isZero(); // [0, 7) still holds offset 6
            final RetentionResult r = log.trimBefore(16);
            assertThat(r.segmentsDeleted()).isEqualTo(2); // [0, 7) and [7, 14); [14, 21) holds 16
            assertThat(r.baseOffset()).isEqualTo(14).isEqualTo(log.baseOffset());
            assertThat(TestSupport.segmentFiles(dir)).hasSize(4);
            assertThat(log.read(13, 10, 10_000)).isEqualTo(new ReadResult.Trimmed(13, 14));
            final List<LogRecord> rest = TestSupport.readAll(log);
            assertThat(rest).hasSize(26);
            assertThat(rest.get(0).offset()).isEqualTo(14);
            assertThat(log.trimBefore(16).segmentsDeleted()).isZero(); // idempotent
        }
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.baseOffset()).isEqualTo(14);
            assertThat(log.tailOffset()).isEqualTo(40);
        }
    }

    @Test
    void trimBefore_theTail_keepsTheActiveSegment() {
        try (SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), config(), runtime)) {
            fill(log, 40);
            log.trimBefore(Long.MAX_VALUE);
            assertThat(log.segmentCount()).isEqualTo(1);
            assertThat(log.baseOffset()).isEqualTo(35);
            assertThat(log.tailOffset()).isEqualTo(40);
            log.append(payload(40, 100), 0);
            assertThat(TestSupport.readAll(log)).hasSize(6);
        }
    }

    @Test
    void trimBefore_rejectsNegative_andClosedLog() {
        final SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), config(), runtime);
        assertThatThrownBy(() -> log.trimBefore(-1)).isInstanceOfSatisfying(StorageException.class,
            e -> assertThat(e.code()).isEqualTo(StorageErrorCode.INVALID_ARGUMENT));
        log.close();
        assertThatThrownBy(() -> log.trimBefore(0)).isInstanceOfSatisfying(StorageException.class,
            e -> assertThat(e.code()).isEqualTo(StorageErrorCode.CLOSED));
    }
}
