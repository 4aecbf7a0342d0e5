package dev.felix.storage;

import static dev.felix.storage.TestSupport.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A failed write (disk full) never corrupts the log: the file is cut back and the append fails cleanly. */
class FullDiskTest {
    @TempDir
    Path tmp;

    private final FaultyChannel.Faults faults = new FaultyChannel.Faults();
    private final StorageRuntime runtime = StorageRuntime.builder().channelOpener(faults).build();

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private static LogConfig config() {
        return LogConfig.builder().segmentBytes(4096).fsyncPolicy(FsyncPolicy.none()).build();
    }

    @Test
    void failedWrite_failsTheAppend_leavesTheFileAtItsLastGoodSize_andTheLogUsable() throws IOException {
        final Path dir = tmp.resolve("log");
        final Path file = dir.resolve(SegmentFiles.logName(0));
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            log.append(payload(0, 100), 1);
            final long good = Files.size(file);
            faults.logWriteBudget.set(50);
            assertThatThrownBy(() -> log.append(TestSupport.batch(1, 3, 100), 2))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.code()).isEqualTo(StorageErrorCode.IO);
                    assertThat(e.file()).hasValue(file);
                    assertThat(e.getMessage()).contains("No space left on device");
                });
            assertThat(Files.size(file)).isEqualTo(good);
            assertThat(log.tailOffset()).isEqualTo(1);

            faults.partialWrite = true; // half the batch reaches the file before the error
            assertThatThrownBy(() -> log.append(TestSupport.batch(1, 3, 100), 2)).isInstanceOf(StorageException.class);
            assertThat(Files.size(file)).isEqualTo(good);

            faults.logWriteBudget.set(-1);
            assertThat(log.append(TestSupport.batch(1, 3, 100), 2).firstOffset()).isEqualTo(1);
            assertThat(TestSupport.readAll(log)).hasSize(4);
        }
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(log.recoveryReport().tailRepair()).isEmpty();
            assertThat(log.tailOffset()).isEqualTo(4);
        }
        assertThat(LogTools.verify(dir).clean()).isTrue();
    }

    @Test
    void failedWriteWhoseRollbackAlsoFails_refusesWrites_andReopenRepairsTheTornTail() {
        final Path dir = tmp.resolve("log");
        final SegmentedLog log = SegmentedLog.open(dir, config(), runtime);
        log.append(payload(0, 100), 1);
        faults.partialWrite = true;
        faults.failTruncate = true;
        assertThatThrownBy(() -> log.append(payload(1, 1000), 2)).isInstanceOf(StorageException.class);
        faults.failTruncate = false;
        assertThatThrownBy(() -> log.append(payload(1, 10), 2)).isInstanceOfSatisfying(StorageException.class,
            e -> assertThat(e.getMessage()).contains("refuses writes until it is reopened"));
        assertThat(log.read(0, 10, 10_000).recordsOrThrow()).hasSize(1); // readers are unaffected
        log.close();
        try (SegmentedLog reopened = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(reopened.recoveryReport().tailRepair()).hasValueSatisfying(
                r -> assertThat(r.reason()).isEqualTo(CorruptionKind.TRUNCATED));
            assertThat(reopened.tailOffset()).isEqualTo(1);
        }
    }

    @Test
    void failedRoll_failsTheAppendAndKeepsTheLog() throws IOException {
        final Path dir = tmp.resolve("log");
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            for (int i = 0; i < 30; i++) {
                log.append(payload(i, 100), 1);
            }
            final int segments = log.segmentCount();
            // occupy the next segment's file name so creating it fails
            final long nextId = TestSupport.segmentFiles(dir).size();
            Files.write(dir.resolve(SegmentFiles.logName(nextId)), new byte[0]);
            long i = 30;
            StorageException failure = null;
            while (failure == null && i < 200) {
                try {
                    log.append(payload(i, 100), 1);
                    i++;
                } catch (final StorageException e) {
                    failure = e;
                }
            }
            assertThat(failure).isNotNull();
            assertThat(failure.code()).isEqualTo(StorageErrorCode.IO);
            assertThat(log.segmentCount()).isEqualTo(segments);
            Files.delete(dir.resolve(SegmentFiles.logName(nextId)));
            assertThat(log.append(payload(i, 100), 1).firstOffset()).isEqualTo(i);
            assertThat(TestSupport.readAll(log)).hasSize((int) i + 1);
        }
    }
}
