package dev.felix.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Issue 13 item 1: one broker per data directory, by an OS lock that dies with its process. */
class DataDirLockTest {
    @TempDir
    Path dataDir;

    @Test
    void aSecondHolderInTheSameProcess_isRefused_untilTheFirstReleases() throws Exception {
        final long self = ProcessHandle.current().pid();
        try (DataDirLock first = DataDirLock.acquire(dataDir)) {
            assertThat(first.pid()).isEqualTo(self);
            assertThat(Files.readString(dataDir.resolve(".lock"))).startsWith("felix-data-dir-lock v1\n")
                .contains("pid " + self + "\n");
            assertThatThrownBy(() -> DataDirLock.acquire(dataDir)).isInstanceOfSatisfying(StorageException.class, e -> {
                assertThat(e.code()).isEqualTo(StorageErrorCode.DIRECTORY_LOCKED);
                assertThat(e.holderPid()).hasValue(self);
                assertThat(e.getMessage()).contains("data_dir " + dataDir).contains("pid " + self)
                    .contains("--data-dir");
            });
            // Another spelling of the same directory (here through a symbolic link) is the same directory.
            final Path link = Files.createSymbolicLink(dataDir.resolveSibling(dataDir.getFileName() + "-link"), dataDir);
            try {
                assertThatThrownBy(() -> DataDirLock.acquire(link)).isInstanceOfSatisfying(StorageException.class,
                    e -> assertThat(e.code()).isEqualTo(StorageErrorCode.DIRECTORY_LOCKED));
            } finally {
                Files.delete(link);
            }
            assertThat(first.directory()).isEqualTo(dataDir.toRealPath());
        }
        try (DataDirLock again = DataDirLock.acquire(dataDir)) {
            assertThat(again.file()).isEqualTo(dataDir.toRealPath().resolve(".lock"));
        }
    }

    @Test
    void aMissingDirectory_isAnIoErrorNamingIt() {
        final Path missing = dataDir.resolve("nope");
        assertThatThrownBy(() -> DataDirLock.acquire(missing)).isInstanceOfSatisfying(StorageException.class, e -> {
            assertThat(e.code()).isEqualTo(StorageErrorCode.IO);
            assertThat(e.getMessage()).contains(missing.toString());
        });
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anotherProcessHoldingIt_isNamedByPid_andKill9ReleasesIt() throws Exception {
        final String java = ProcessHandle.current().info().command().orElse(
            System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        final Process child = new ProcessBuilder(java, "-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp",
            System.getProperty("java.class.path"), DataDirLockHolderMain.class.getName(), dataDir.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            final BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII));
            final String line = out.readLine();
            assertThat(line).isEqualTo("LOCKED " + child.pid());
            assertThatThrownBy(() -> DataDirLock.acquire(dataDir)).isInstanceOfSatisfying(StorageException.class, e -> {
                assertThat(e.code()).isEqualTo(StorageErrorCode.DIRECTORY_LOCKED);
                assertThat(e.holderPid()).hasValue(child.pid());
                assertThat(e.getMessage()).isEqualTo("data_dir " + dataDir + " is in use by another felix process (pid "
                    + child.pid() + "); stop it or choose another --data-dir");
            });
            child.destroyForcibly(); // SIGKILL: no shutdown hook, no unlock call; the kernel releases the lock
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            try (DataDirLock mine = DataDirLock.acquire(dataDir)) {
                assertThat(Files.readString(mine.file())).contains("pid " + ProcessHandle.current().pid() + "\n")
                    .doesNotContain("pid " + child.pid() + "\n");
            }
        } finally {
            child.destroyForcibly();
        }
    }
}
