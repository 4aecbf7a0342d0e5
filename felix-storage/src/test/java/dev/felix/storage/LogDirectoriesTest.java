package dev.felix.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Deleting log directories: rename to .deleted first, then remove; leftovers of a crash in between are removed later. */
class LogDirectoriesTest {
    @TempDir
    Path root;

    private Path makeLog(final String stream) {
        final Path dir = new LogId("t", "n", stream, 0, 5).resolve(root);
        try (StorageRuntime runtime = StorageRuntime.create();
             SegmentedLog log = SegmentedLog.open(dir, LogConfig.builder().segmentBytes(200).build(), runtime)) {
            for (int i = 0; i < 20; i++) {
                log.append(new byte[50], i);
            }
        }
        return dir;
    }

    private long entries() throws IOException {
        try (Stream<Path> s = Files.list(root)) {
            return s.count();
        }
    }

    @Test
    void delete_removesTheWholeDirectory_andTouchesNothingElse() throws IOException {
        final Path doomed = makeLog("a");
        final Path kept = makeLog("b");
        Files.write(root.resolve("streams.meta"), new byte[] {1});
        assertThat(LogDirectories.delete(doomed)).isTrue();
        assertThat(doomed).doesNotExist();
        assertThat(kept).isDirectory();
        assertThat(TestSupport.segmentFiles(kept)).isNotEmpty();
        assertThat(root.resolve("streams.meta")).exists();
        assertThat(entries()).isEqualTo(2);
        assertThat(LogDirectories.delete(doomed)).as("already gone").isFalse();
    }

    @Test
    void aCrashBetweenRenameAndRemoval_leavesADeletedDirectory_thatTheNextCallRemoves() throws IOException {
        final Path log = makeLog("a");
        final Path other = makeLog("b");
        // The state a crash right after the rename leaves:
        final Path leftover = root.resolve(log.getFileName() + ".1a2b" + LogDirectories.DELETED_SUFFIX);
        Files.move(log, leftover);
        assertThat(LogTools.verify(root).logs()).as("a .deleted directory is never a log").isEqualTo(1);
        assertThat(LogTools.inspect(root).logs()).extracting(LogTools.LogInfo::directory).containsExactly(other);
        assertThat(LogDirectories.removeDeleted(root)).containsExactly(leftover);
        assertThat(leftover).doesNotExist();
        assertThat(other).isDirectory();

        // ... and a delete of another log also sweeps leftovers.
        final Path again = makeLog("c");
        final Path leftover2 = root.resolve(again.getFileName() + ".ff" + LogDirectories.DELETED_SUFFIX);
        Files.move(again, leftover2);
        assertThat(LogDirectories.delete(other)).isTrue();
        assertThat(entries()).isZero();
    }

    @Test
    void deleteThenRecreate_sameLogId_startsEmpty() {
        final Path log = makeLog("a");
        LogDirectories.delete(log);
        try (StorageRuntime runtime = StorageRuntime.create();
             SegmentedLog reopened = SegmentedLog.open(log, LogConfig.defaults(), runtime)) {
            assertThat(reopened.tailOffset()).isZero();
        }
    }

    @Test
    void aFileOrARoot_isRefused() throws IOException {
        final Path file = Files.write(root.resolve("x"), new byte[] {1});
        assertThatThrownBy(() -> LogDirectories.delete(file)).isInstanceOfSatisfying(StorageException.class,
            e -> assertThat(e.code()).isEqualTo(StorageErrorCode.INVALID_ARGUMENT));
        assertThat(file).exists();
        assertThatThrownBy(() -> LogDirectories.delete(root.getRoot())).isInstanceOfSatisfying(StorageException.class,
            e -> assertThat(e.code()).isEqualTo(StorageErrorCode.INVALID_ARGUMENT));
    }
}
