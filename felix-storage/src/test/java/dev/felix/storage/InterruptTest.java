package dev.felix.storage;

import static dev.felix.storage.TestSupport.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An interrupted thread doing I/O must not close the log's files for everyone (FileChannel closes itself
 * on interrupt); the caller's interrupt flag survives.
 */
class InterruptTest {
    @TempDir
    Path tmp;

    private final StorageRuntime runtime = StorageRuntime.create();

    @AfterEach
    void closeRuntime() {
        Thread.interrupted();
        runtime.close();
    }

    @Test
    void interruptedReaderAndWriter_keepTheLogWorking_andKeepTheirFlag() {
        final LogConfig cfg = LogConfig.builder().fsyncPolicy(FsyncPolicy.none()).build();
        try (SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), cfg, runtime)) {
            log.append(payload(0, 10), 1);

            Thread.currentThread().interrupt();
            assertThat(log.read(0, 10, 1000).recordsOrThrow()).hasSize(1);
            assertThat(Thread.interrupted()).isTrue();

            Thread.currentThread().interrupt();
            assertThat(log.append(payload(1, 10), 1).firstOffset()).isEqualTo(1);
            assertThat(Thread.interrupted()).isTrue();

            assertThat(TestSupport.readAll(log)).hasSize(2);
            log.sync();
            assertThat(log.durableOffset()).isEqualTo(2);

            log.append(payload(2, 10), 1);
            Thread.currentThread().interrupt();
            assertThatThrownBy(() -> log.awaitDurable(3)).isInstanceOfSatisfying(StorageException.class,
                e -> assertThat(e.code()).isEqualTo(StorageErrorCode.INTERRUPTED));
            assertThat(Thread.interrupted()).isTrue();
            log.awaitDurable(3);
        }
    }
}
