package dev.felix.core.writer;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the log directories of deleted streams and caches. A directory is first renamed with a
 * {@value #SUFFIX} suffix (one atomic step: from then on nothing opens it), then removed; a crash in between
 * leaves a {@code .deleted} directory that {@link #purgeLeftovers} removes later. Thread-safe.
 */
public final class LogDirectories {

    private static final Logger LOG = LoggerFactory.getLogger(LogDirectories.class);

    /** Suffix of a directory on its way out. */
    public static final String SUFFIX = ".deleted";

    private LogDirectories() {
    }

    /** Renames {@code dir} aside (if it exists) and returns the new path, or null when there was nothing. */
    public static Path retire(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return null;
        }
        Path aside = dir.resolveSibling(dir.getFileName() + "." + System.nanoTime() + SUFFIX);
        Files.move(dir, aside, StandardCopyOption.ATOMIC_MOVE);
        return aside;
    }

    /** Removes a retired directory and everything in it; logs instead of throwing. */
    public static void remove(Path retired) {
        if (retired == null) {
            return;
        }
        try {
            Files.walkFileTree(retired, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (NoSuchFileException gone) {
            // removed meanwhile
        } catch (IOException e) {
            LOG.warn("could not remove {} (a deleted log); remove it by hand: {}", retired, e.toString());
        }
    }

    /** Removes {@code .deleted} directories a crash left under {@code logsRoot}. */
    public static void purgeLeftovers(Path logsRoot) {
        if (logsRoot == null || !Files.isDirectory(logsRoot)) {
            return;
        }
        try (var dirs = Files.newDirectoryStream(logsRoot, "*" + SUFFIX)) {
            for (Path d : dirs) {
                LOG.info("removing {}: a deleted log a crash left behind", d);
                remove(d);
            }
        } catch (IOException e) {
            LOG.warn("could not list {} for deleted logs: {}", logsRoot, e.toString());
        }
    }
}
