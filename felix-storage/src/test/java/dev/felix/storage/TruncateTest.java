package dev.felix.storage;

import static dev.felix.storage.TestSupport.payload;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** truncate(offset) (replication hook, semantics.md §11.10). */
class TruncateTest {
    @TempDir
    Path tmp;

    private final StorageRuntime runtime = StorageRuntime.create();

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private static LogConfig config() {
        return LogConfig.builder().segmentBytes(1024).indexSpacingBytes(200).fsyncPolicy(FsyncPolicy.onCommit()).build();
    }

    private SegmentedLog filled(final Path dir) {
        final SegmentedLog log = SegmentedLog.open(dir, config(), runtime);
        for (int i = 0; i < 40; i++) {
            log.append(payload(i, 100), 1000 + i);
        }
        log.sync();
        return log;
    }

    @ParameterizedTest
    @ValueSource(longs = {39, 37, 35, 21, 14, 1, 0})
    void truncate_removesEverythingFromOffset_andAppendsContinueThere(final long offset) {
        final Path dir = tmp.resolve("log");
        try (SegmentedLog log = filled(dir)) {
            log.truncate(offset);
            assertThat(log.tailOffset()).isEqualTo(offset);
            assertThat(log.durableOffset()).isEqualTo(offset);
            assertThat(TestSupport.readAll(log)).extracting(LogRecord::offset).hasSize((int) offset);
            final AppendResult r = log.append(payload(offset, 7), 5);
            assertThat(r.firstOffset()).isEqualTo(offset);
            log.sync();
        }
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.recoveryReport().tailRepair()).isEmpty();
            final List<LogRecord> all = TestSupport.readAll(log);
            assertThat(all).hasSize((int) offset + 1);
            for (int i = 0; i < offset; i++) {
                assertThat(all.get(i)).isEqualTo(new LogRecord(i, 1000 + i, payload(i, 100)));
            }
            assertThat(all.get((int) offset)).isEqualTo(new LogRecord(offset, 5, payload(offset, 7)));
        }
        assertThat(LogTools.verify(dir).clean()).isTrue();
    }

    @Test
    void truncate_atOrBeyondTheTail_isANoOp() {
        try (SegmentedLog log = filled(tmp.resolve("log"))) {
            log.truncate(40);
            log.truncate(400);
            assertThat(log.tailOffset()).isEqualTo(40);
        }
    }

    @Test
    void truncate_belowTheBase_restartsTheLogEmptyThere() {
        final LogConfig cfg = config().toBuilder().retentionBytes(1).build();
        try (SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), cfg, runtime)) {
            for (int i = 0; i < 40; i++) {
                log.append(payload(i, 100), 1);
            }
            log.enforceRetention();
            final long base = log.baseOffset();
            assertThat(base).isPositive();
            log.truncate(base - 3);
            assertThat(log.baseOffset()).isEqualTo(base - 3);
            assertThat(log.tailOffset()).isEqualTo(base - 3);
            assertThat(log.append(payload(0, 1), 1).firstOffset()).isEqualTo(base - 3);
        }
    }
}
