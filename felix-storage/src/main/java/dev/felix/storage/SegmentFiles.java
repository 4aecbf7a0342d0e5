package dev.felix.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * <b>Stateless; thread-safe.</b>
 *
 * <p>File naming inside one log directory: {@code %020d.log} and {@code %020d.index}, where the number is the
 * segment <em>id</em> (0, 1, 2, ... one per segment created), not its base offset; the base offset lives in
 * the segment header. Directory listings are parsed and sorted numerically, never trusted for order; names
 * that are not {@code <digits>.log} are ignored.
 */
final class SegmentFiles {
    static final String LOG_SUFFIX = ".log";
    static final String INDEX_SUFFIX = ".index";
    /** Digits in a file name: enough for any non-negative long. */
    static final int NAME_DIGITS = 20;

    private SegmentFiles() {
    }

    static String logName(final long id) {
        return String.format("%020d", id) + LOG_SUFFIX;
    }

    static String indexName(final long id) {
        return String.format("%020d", id) + INDEX_SUFFIX;
    }

    static Path logPath(final Path dir, final long id) {
        return dir.resolve(logName(id));
    }

    static Path indexPath(final Path dir, final long id) {
        return dir.resolve(indexName(id));
    }

    /** The segment id named by {@code fileName}, or -1 when it is not {@code <digits>.log}. */
    static long parseId(final String fileName) {
        if (!fileName.endsWith(LOG_SUFFIX)) {
            return -1;
        }
        final String digits = fileName.substring(0, fileName.length() - LOG_SUFFIX.length());
        if (digits.isEmpty() || digits.length() > NAME_DIGITS) {
            return -1;
        }
        for (int i = 0; i < digits.length(); i++) {
            final char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
        }
        try {
            return Long.parseLong(digits);
        } catch (final NumberFormatException tooBig) {
            return -1;
        }
    }

    /** Segment ids present in {@code dir}, ascending. */
    static List<Long> listIds(final Path dir) throws IOException {
        final List<Long> ids = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + LOG_SUFFIX)) {
            for (final Path p : files) {
                final long id = parseId(p.getFileName().toString());
                if (id >= 0 && Files.isRegularFile(p)) {
                    ids.add(id);
                }
            }
        }
        Collections.sort(ids);
        return ids;
    }

    /** True when {@code dir} holds at least one segment file (no file is opened). */
    static boolean containsSegments(final Path dir) throws IOException {
        return !listIds(dir).isEmpty();
    }

    /**
     * Makes directory entries (files created, renamed or deleted in {@code dir}) durable. On file systems that
     * cannot open a directory for fsync this is a no-op, as there is nothing else to do there.
     */
    static void fsyncDirectory(final Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (final UnsupportedOperationException | java.nio.file.AccessDeniedException notSupported) {
            // e.g. Windows: directories cannot be opened; metadata durability is the file system's business
        }
    }
}
