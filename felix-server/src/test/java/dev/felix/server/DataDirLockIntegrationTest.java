package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.storage.StorageErrorCode;
import dev.felix.storage.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 13 item 1: a second broker on the same data_dir refuses to start; the first keeps it until it stops. */
class DataDirLockIntegrationTest {
    @TempDir
    Path dir;

    @Test
    void aSecondBrokerOnTheSameDataDir_refusesToStart_untilTheFirstStops() throws Exception {
        try (TestBroker first = TestBroker.start(dir)) {
            assertThat(first.server().ready()).isTrue();
            assertThat(Files.readString(dir.resolve(".lock"))).contains("pid " + ProcessHandle.current().pid());
            assertThatThrownBy(() -> TestBroker.start(dir)).isInstanceOfSatisfying(StorageException.class, e -> {
                assertThat(e.code()).isEqualTo(StorageErrorCode.DIRECTORY_LOCKED);
                assertThat(e.getMessage()).startsWith("data_dir " + dir + " is in use by another felix")
                    .contains("pid " + ProcessHandle.current().pid()).endsWith("stop it or choose another --data-dir");
            });
            assertThat(first.server().ready()).as("the first broker is untouched").isTrue();
        }
        try (TestBroker second = TestBroker.start(dir)) {
            assertThat(second.server().ready()).isTrue();
        }
    }
}
