package dev.felix.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/**
 * <b>Shared by the log's appender, readers and flusher under the rules in "Concurrency" below; owned by one log.</b>
 *
 * <p>One segment of a log: its {@code .log} and {@code .index} files, its in-memory sparse index and its
 * committed extent.
 *
 * <p><b>Invariant:</b> the file holds a valid header followed by records {@code baseOffset ..
 * nextOffset - 1} back to back, ending exactly at {@code size}. Bytes past {@code size} may exist only
 * while an append is in flight (they are not visible) or after a failed write (they are cut off).
 *
 * <p><b>Concurrency:</b> {@code size}, {@code nextOffset} and {@code lastTimestampMicros} are written only
 * by the log's appender (under the append lock) and read by anyone. The appender publishes {@code size}
 * before {@code nextOffset}, so a reader that reads {@code nextOffset} first and {@code size} second always
 * finds every record below that offset inside that size. Fields marked "flusher" are owned by
 * {@link GroupCommit} under its flush lock. Channels are closed only under the log's exclusive lifecycle lock
 * (retention, truncate, close) after the segment left the published state, so readers never see them
 * close.
 */
final class Segment {
    private static final Set<StandardOpenOption> CREATE_LOG = Set.of(StandardOpenOption.CREATE_NEW,
        StandardOpenOption.READ, StandardOpenOption.WRITE);
    private static final Set<StandardOpenOption> CREATE_INDEX = Set.of(StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.READ, StandardOpenOption.WRITE);
    private static final Set<StandardOpenOption> OPEN_INDEX = Set.of(StandardOpenOption.CREATE,
        StandardOpenOption.READ, StandardOpenOption.WRITE);

    final long id;
    final long baseOffset;
    final Path logPath;
    final Path indexPath;
    final SegmentChannel log;
    final SegmentChannel index;
    final SparseIndex sparse;

    private volatile long size;
    private volatile long nextOffset;
    private volatile long lastTimestampMicros = Long.MIN_VALUE;
    /** Set when the segment stops being the active one (roll) and cleared only by truncate adopting it. */
    volatile boolean sealed;
    /** Set before the channels are closed by retention or truncate; the flusher skips deleted segments. */
    volatile boolean deleted;
    /** An index write failed while appending: the file must be rewritten from memory before it is forced. */
    volatile boolean indexDirty;
    /**
     * Damage found in this segment (at open or by reads), by byte position of the fault; filled once per range
     * (put-if-absent), read by any reader. See {@link CorruptRange}.
     */
    final java.util.concurrent.ConcurrentHashMap<Long, CorruptRange> damage = new java.util.concurrent.ConcurrentHashMap<>();

    /** Flusher: bytes known to be on the device. */
    long syncedSize;
    /** Flusher: the sealed index has been forced. */
    boolean indexSynced;
    /** Flusher: the directory entry of this segment's files has been forced. */
    boolean dirSynced;

    private Segment(final long id, final long baseOffset, final Path logPath, final Path indexPath,
                    final SegmentChannel log, final SegmentChannel index, final int indexSpacing) {
        this.id = id;
        this.baseOffset = baseOffset;
        this.logPath = logPath;
        this.indexPath = indexPath;
        this.log = log;
        this.index = index;
        this.sparse = new SparseIndex(indexSpacing);
    }

    /**
     * Creates segment {@code id} in {@code dir} with its header and an empty index. Nothing is forced here:
     * the header reaches the device with the segment's first flush, and the directory entry is forced by the
     * flusher before any offset in the segment is reported durable.
     */
    static Segment create(final Path dir, final long id, final long baseOffset, final long createdAtMicros,
                          final int indexSpacing, final ChannelOpener opener) throws IOException {
        final Path logPath = SegmentFiles.logPath(dir, id);
        final Path indexPath = SegmentFiles.indexPath(dir, id);
        final SegmentChannel log = SegmentChannel.open(logPath, CREATE_LOG, SegmentChannel.READ_WRITE, opener);
        SegmentChannel index = null;
        try {
            log.writeFully(new SegmentHeader(baseOffset, createdAtMicros).encode(), 0);
            index = SegmentChannel.open(indexPath, CREATE_INDEX, SegmentChannel.READ_WRITE, opener);
            index.writeFully(IndexFile.header(baseOffset), 0);
        } catch (final IOException | RuntimeException e) {
            closeQuietly(log);
            closeQuietly(index);
            Files.deleteIfExists(logPath);
            Files.deleteIfExists(indexPath);
            throw e;
        }
        final Segment s = new Segment(id, baseOffset, logPath, indexPath, log, index, indexSpacing);
        s.size = SegmentHeaderDescriptor.LENGTH;
        s.nextOffset = baseOffset;
        return s;
    }

    /** Opens an existing segment whose header said {@code baseOffset}; recovery then {@link #restore}s it. */
    static Segment open(final Path dir, final long id, final long baseOffset, final SegmentChannel log,
                        final int indexSpacing, final ChannelOpener opener) throws IOException {
        final Path indexPath = SegmentFiles.indexPath(dir, id);
        final SegmentChannel index = SegmentChannel.open(indexPath, OPEN_INDEX, SegmentChannel.READ_WRITE, opener);
        return new Segment(id, baseOffset, log.path(), indexPath, log, index, indexSpacing);
    }

    /** Sets the recovered extent. Called by recovery before the segment is published. */
    void restore(final long validSize, final long next, final long lastTimestamp) {
        this.size = validSize;
        this.nextOffset = next;
        this.lastTimestampMicros = lastTimestamp;
    }

    /** Publishes an append: size first, then the offset bound (see the class comment). Appender only. */
    void commit(final long newSize, final long newNextOffset, final long timestampMicros) {
        this.lastTimestampMicros = timestampMicros;
        this.size = newSize;
        this.nextOffset = newNextOffset;
    }

    long size() {
        return size;
    }

    long nextOffset() {
        return nextOffset;
    }

    long recordCount() {
        return nextOffset - baseOffset;
    }

    /** Timestamp of the last record, or {@link Long#MIN_VALUE} when unknown or empty. */
    long lastTimestampMicros() {
        return lastTimestampMicros;
    }

    /** Closes both files; errors are ignored (the segment is being discarded or the log closed). */
    void closeQuietly() {
        closeQuietly(log);
        closeQuietly(index);
    }

    /** Closes and deletes both files. */
    void delete() throws IOException {
        deleted = true;
        closeQuietly();
        Files.deleteIfExists(logPath);
        Files.deleteIfExists(indexPath);
    }

    private static void closeQuietly(final SegmentChannel ch) {
        if (ch == null) {
            return;
        }
        try {
            ch.close();
        } catch (final IOException ignored) {
            // nothing more can be done for a file being discarded
        }
    }

    @Override
    public String toString() {
        return logPath.getFileName() + "[" + baseOffset + ".." + nextOffset + ")";
    }
}
