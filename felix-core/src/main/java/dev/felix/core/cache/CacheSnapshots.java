package dev.felix.core.cache;

import dev.felix.storage.SegmentedLog;
import dev.felix.storage.StorageException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;

/**
 * The snapshot files of a log cache's directory, for whoever keeps a copy of that directory elsewhere: a cluster
 * replica of the cache keeps its leader's snapshots beside its copy of the log, so that it can load the cache (when
 * it takes over) and compact its own log exactly as the leader does. The file format stays private to this
 * package; callers move whole files.
 *
 * <p><b>Compaction rule</b> (the same as the leader's, see {@link CacheLog}): at most {@value CacheLog#SNAPSHOTS_KEPT}
 * snapshots are kept, and the log reaches back to the oldest kept one.
 *
 * <p><b>Threads.</b> Stateless; blocking file I/O (call it off event loops). One caller per directory at a time.
 */
public final class CacheSnapshots {

    private CacheSnapshots() {
    }

    /** Offset of the newest snapshot in {@code dir}, if any. */
    public static OptionalLong newest(Path dir) throws IOException {
        List<Long> offsets = offsets(dir);
        return offsets.isEmpty() ? OptionalLong.empty() : OptionalLong.of(offsets.get(offsets.size() - 1));
    }

    /** The file of the snapshot at {@code offset} in {@code dir} (it may not exist). */
    public static Path file(Path dir, long offset) {
        return dir.resolve(SnapshotFile.fileName(offset));
    }

    /**
     * Where a snapshot at {@code offset} is assembled before {@link #install}: a temporary name that loading a
     * cache removes, so an interrupted transfer leaves nothing behind that could be read.
     */
    public static Path partFile(Path dir, long offset) {
        return dir.resolve(SnapshotFile.fileName(offset) + SnapshotFile.TMP_SUFFIX);
    }

    /**
     * Validates the assembled snapshot {@code part} (it must be a whole, valid snapshot at {@code offset}), forces it
     * to disk and renames it into place. An invalid file is deleted.
     *
     * @throws IllegalArgumentException naming what is wrong with the file
     */
    public static Path install(Path dir, long offset, Path part) throws IOException {
        SnapshotFile.Contents contents;
        try {
            contents = SnapshotFile.read(part);
        } catch (IllegalArgumentException e) {
            Files.deleteIfExists(part);
            throw e;
        }
        if (contents.offset() != offset) {
            Files.deleteIfExists(part);
            throw new IllegalArgumentException("snapshot " + part + " says offset " + contents.offset() + ", expected "
                    + offset);
        }
        try (FileChannel ch = FileChannel.open(part, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        Path target = file(dir, offset);
        Files.move(part, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        SnapshotFile.fsyncDirectory(dir);
        return target;
    }

    /**
     * Applies the compaction rule to {@code dir} and its open {@code log}: deletes snapshots beyond the newest
     * {@value CacheLog#SNAPSHOTS_KEPT}, then trims the log below the oldest kept one, provided the log reaches it.
     * Returns the log's base offset.
     */
    public static long retain(Path dir, SegmentedLog log) throws IOException {
        List<Long> offsets = offsets(dir);
        int drop = offsets.size() - CacheLog.SNAPSHOTS_KEPT;
        for (int i = 0; i < drop; i++) {
            Files.deleteIfExists(file(dir, offsets.get(i)));
        }
        if (offsets.size() >= CacheLog.SNAPSHOTS_KEPT) {
            long keepFrom = offsets.get(Math.max(0, drop));
            if (keepFrom <= log.tailOffset()) {
                try {
                    log.trimBefore(keepFrom);
                } catch (StorageException e) {
                    throw new IOException("trimming the log in " + dir + " below " + keepFrom + " failed: "
                            + e.getMessage(), e);
                }
            }
        }
        return log.baseOffset();
    }

    /** Deletes snapshot files being assembled in {@code dir} ({@link #partFile}): transfers that were cut off. */
    public static void deleteParts(Path dir) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, SnapshotFile.PREFIX + "*"
                + SnapshotFile.SUFFIX + SnapshotFile.TMP_SUFFIX)) {
            for (Path f : files) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            // a later install overwrites a leftover part anyway
        }
    }

    /** Snapshot offsets present in {@code dir}, ascending (none if it does not exist). */
    static List<Long> offsets(Path dir) throws IOException {
        List<Long> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, SnapshotFile.PREFIX + "*"
                + SnapshotFile.SUFFIX)) {
            for (Path f : files) {
                long o = SnapshotFile.parseOffset(f.getFileName().toString());
                if (o >= 0) {
                    out.add(o);
                }
            }
        }
        out.sort(Comparator.naturalOrder());
        return out;
    }
}
