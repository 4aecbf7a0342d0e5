package dev.felix.storage;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * <b>Stateless; thread-safe; touches only the directories it is given.</b>
 *
 * <p>Deleting log directories safely (stream delete, cache drop). A delete first renames the directory to
 * {@code <name>.<hex nanos>}{@value #DELETED_SUFFIX} in the same parent (one atomic rename, forced), so the log
 * is gone from its name at once and a re-created stream with the same {@link LogId} finds nothing; then the
 * renamed tree is removed. A crash in between leaves a {@value #DELETED_SUFFIX} directory, which the next
 * {@link #delete} or {@link #removeDeleted} in that parent removes. Names ending in {@value #DELETED_SUFFIX}
 * are never logs ({@link LogTools} skips them).
 *
 * <p>The caller must have closed the log ({@link SegmentedLog#close()}) first.
 */
public final class LogDirectories {
    private static final Logger LOG = LoggerFactory.getLogger(LogDirectories.class);

    /** Suffix of a directory that is being deleted. */
    public static final String DELETED_SUFFIX = ".deleted";

    private static final AtomicLong UNIQUE = new AtomicLong();

    private LogDirectories() {
    }

    /**
     * Deletes the log directory {@code dir}: rename to a {@value #DELETED_SUFFIX} name, force the parent, remove
     * the tree, force the parent; also removes {@value #DELETED_SUFFIX} leftovers of earlier crashed deletes in
     * the same parent.
     *
     * @return true when {@code dir} existed
     * @throws StorageException {@link StorageErrorCode#IO} when the rename or a removal fails (a directory that
     *                          was renamed is removed by the next call); {@link StorageErrorCode#INVALID_ARGUMENT}
     *                          when {@code dir} is not a directory (or a symbolic link)
     */
    public static boolean delete(final Path dir) {
        final Path parent = dir.toAbsolutePath().getParent();
        if (parent == null) {
            throw StorageException.of(StorageErrorCode.INVALID_ARGUMENT, "refusing to delete a root directory: " + dir);
        }
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            removeDeleted(parent);
            return false;
        }
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw StorageException.of(StorageErrorCode.INVALID_ARGUMENT, "not a log directory (a file or a link): " + dir);
        }
        final Path doomed = parent.resolve(dir.getFileName() + "." + Long.toHexString(System.nanoTime())
            + Long.toHexString(UNIQUE.incrementAndGet()) + DELETED_SUFFIX);
        try {
            Files.move(dir, doomed, StandardCopyOption.ATOMIC_MOVE);
            SegmentFiles.fsyncDirectory(parent);
        } catch (final IOException e) {
            throw StorageException.io("could not rename log directory " + dir + " for deletion", dir, e);
        }
        removeDeleted(parent);
        return true;
    }

    /**
     * The uid a log directory's name carries ({@link LogId#directoryName()}: {@code ...-<hash>.<16 hex digits>}),
     * or 0 for a legacy name without one, a {@value #DELETED_SUFFIX} leftover, or anything else.
     */
    public static long uidOf(final String directoryName) {
        final int dot = directoryName.lastIndexOf('.');
        if (dot < 0 || directoryName.length() - dot - 1 != 16 || directoryName.endsWith(DELETED_SUFFIX)) {
            return 0;
        }
        try {
            return Long.parseUnsignedLong(directoryName.substring(dot + 1), 16);
        } catch (final NumberFormatException e) {
            return 0;
        }
    }

    /**
     * Removes every {@value #DELETED_SUFFIX} directory directly under {@code root} (leftovers of deletes a crash
     * interrupted); a root that does not exist has none.
     *
     * @return the directories removed
     * @throws StorageException {@link StorageErrorCode#IO} when one cannot be removed
     */
    public static List<Path> removeDeleted(final Path root) {
        final List<Path> removed = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return removed;
        }
        final List<Path> doomed = new ArrayList<>();
        try (DirectoryStream<Path> children = Files.newDirectoryStream(root, p -> p.getFileName().toString()
            .endsWith(DELETED_SUFFIX) && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))) {
            children.forEach(doomed::add);
        } catch (final IOException e) {
            throw StorageException.io("could not list " + root + " for deleted log directories", root, e);
        }
        for (final Path d : doomed) {
            try {
                removeTree(d);
                removed.add(d);
            } catch (final IOException e) {
                throw StorageException.io("could not remove deleted log directory " + d, d, e);
            }
        }
        if (!removed.isEmpty()) {
            try {
                SegmentFiles.fsyncDirectory(root);
            } catch (final IOException e) {
                throw StorageException.io("could not force " + root + " after removing deleted log directories", root, e);
            }
            LOG.info("removed {} deleted log director{} under {}", removed.size(), removed.size() == 1 ? "y" : "ies", root);
        }
        return removed;
    }

    /** True when {@code name} is a directory being deleted (never a log). */
    public static boolean isDeleted(final Path dir) {
        return dir.getFileName() != null && dir.getFileName().toString().endsWith(DELETED_SUFFIX);
    }

    private static void removeTree(final Path root) throws IOException {
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(final Path file, final BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(final Path file, final IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(final Path d, final IOException e) throws IOException {
                if (e != null && !(e instanceof NoSuchFileException)) {
                    throw e;
                }
                Files.deleteIfExists(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
