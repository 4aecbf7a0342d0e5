package dev.felix.storage;

import static dev.felix.storage.WriterHistoryDescriptor.ENTRY_CRC_COVERED;
import static dev.felix.storage.WriterHistoryDescriptor.ENTRY_CRC_OFFSET;
import static dev.felix.storage.WriterHistoryDescriptor.ENTRY_LENGTH;
import static dev.felix.storage.WriterHistoryDescriptor.HEADER_CRC_COVERED;
import static dev.felix.storage.WriterHistoryDescriptor.HEADER_CRC_OFFSET;
import static dev.felix.storage.WriterHistoryDescriptor.HEADER_LENGTH;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * <b>Thread-safe (every method synchronises on the instance); one per open {@link SegmentedLog}.</b>
 *
 * <p>This log instance's writer session in {@link WriterHistoryDescriptor the writer history}: writes START
 * before the session's first write, checks at every flush pass that no other session wrote a START after
 * ours (fencing: the older session stops, the newer one carries on), writes FENCED when one did and END after
 * a clean close.
 *
 * <p><b>Fence check cost.</b> One {@code stat} of the file per flush pass (size and file key); entries are read
 * only when the file grew, and only the new ones.
 */
final class WriterHistory {
    private static final Logger LOG = LoggerFactory.getLogger(WriterHistory.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A decoded entry. */
    record Entry(long position, short kind, long session, long pid, long offset, long timeMicros, long otherSession) {
        String kindName() {
            switch (kind) {
                case WriterHistoryDescriptor.START:
                    return "START";
                case WriterHistoryDescriptor.END:
                    return "END";
                case WriterHistoryDescriptor.FENCED:
                    return "FENCED";
                default:
                    return "kind " + kind;
            }
        }
    }

    /** Entries of a file and the problems found decoding it (for verify). */
    record Decoded(List<Entry> entries, List<String> problems, List<Long> problemPositions) {
    }

    private final Path dir;
    private final Path file;
    private final long session;
    private final long pid;
    private final LongSupplier clock;

    /** Opened {@code O_APPEND} for entries (Java does not allow reading through an append channel). */
    private FileChannel channel;
    /** Opened for reading entries back (the fence check). */
    private FileChannel reader;
    private Object fileKey;
    /** Entries up to here were examined (ours, or before our START). */
    private long scanned;
    private boolean started;
    private boolean closed;
    private StorageException fenced;

    /** Makes each session's temporary file name unique within the process (the pid makes it so across them). */
    private static final java.util.concurrent.atomic.AtomicLong TMP_SEQUENCE = new java.util.concurrent.atomic.AtomicLong();

    WriterHistory(final Path dir, final LongSupplier nowMicros) {
        this.dir = dir;
        this.file = dir.resolve(WriterHistoryDescriptor.FILE_NAME);
        this.clock = nowMicros;
        long s;
        do {
            s = RANDOM.nextLong();
        } while (s == 0);
        this.session = s;
        this.pid = ProcessHandle.current().pid();
    }

    long session() {
        return session;
    }

    synchronized boolean started() {
        return started;
    }

    /**
     * Before the session's first write (caller holds the append lock): opens or creates the file, cuts a torn
     * trailing entry, compacts an oversized file, and appends START with {@code tailOffset}.
     */
    synchronized void start(final long tailOffset) throws IOException {
        if (started || closed) {
            return;
        }
        Files.deleteIfExists(dir.resolve(WriterHistoryDescriptor.TMP_NAME));
        if (!Files.exists(file)) {
            create(List.of());
        }
        long size = Files.size(file);
        if (!validHeader()) {
            final Path aside = dir.resolve(WriterHistoryDescriptor.FILE_NAME + ".corrupt-" + clock.getAsLong());
            LOG.warn("writer history {} has an invalid header; moved aside to {} and started a new one", file, aside);
            Files.move(file, aside, StandardCopyOption.ATOMIC_MOVE);
            create(List.of());
            size = Files.size(file);
        }
        final long torn = (size - HEADER_LENGTH) % ENTRY_LENGTH;
        if (torn != 0) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(size - torn);
            }
            LOG.warn("writer history {}: cut {} bytes of a torn last entry", file, torn);
            size -= torn;
        }
        if (size > WriterHistoryDescriptor.COMPACT_ABOVE_BYTES) {
            final long keepFrom = Math.max(HEADER_LENGTH, size - (long) ENTRY_LENGTH * WriterHistoryDescriptor.COMPACT_KEEP_ENTRIES);
            final byte[] all = Files.readAllBytes(file);
            final List<ByteBuffer> kept = new ArrayList<>();
            for (long p = keepFrom; p + ENTRY_LENGTH <= all.length; p += ENTRY_LENGTH) {
                kept.add(ByteBuffer.wrap(all, (int) p, ENTRY_LENGTH).slice());
            }
            final Path tmp = writeTmp(kept);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            SegmentFiles.fsyncDirectory(dir);
            LOG.info("writer history {}: compacted to its last {} entries", file, kept.size());
        }
        channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        try {
            reader = FileChannel.open(file, StandardOpenOption.READ);
            fileKey = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
            final long before = channel.size();
            write(WriterHistoryDescriptor.START, tailOffset, 0);
            // Find our START (another writer's entry may have landed between the size read and our write).
            long pos = before - (before - HEADER_LENGTH) % ENTRY_LENGTH;
            final long end = channel.size();
            long ours = -1;
            final ByteBuffer buf = ByteBuffer.allocate(ENTRY_LENGTH);
            for (; pos + ENTRY_LENGTH <= end; pos += ENTRY_LENGTH) {
                buf.clear();
                readFully(buf, pos);
                if (buf.getLong(WriterHistoryDescriptor.ENTRY_SESSION_OFFSET) == session) {
                    ours = pos;
                    break;
                }
            }
            if (ours < 0) {
                throw new IOException("writer history " + file + ": own START entry not found after writing it");
            }
            scanned = ours + ENTRY_LENGTH;
            started = true;
        } catch (final IOException | RuntimeException e) {
            closeQuietly();
            channel = null;
            reader = null;
            throw e;
        }
    }

    /**
     * Fence check (a flush pass, before it forces anything): null while no other session wrote after our START;
     * otherwise the {@link StorageErrorCode#CONCURRENT_WRITER} error, after writing FENCED once.
     */
    synchronized StorageException check(final long tailOffset) {
        if (!started || closed) {
            return null;
        }
        if (fenced != null) {
            return fenced;
        }
        try {
            final BasicFileAttributes attrs;
            try {
                attrs = Files.readAttributes(file, BasicFileAttributes.class);
            } catch (final NoSuchFileException gone) {
                return fence(tailOffset, 0, "its writer history " + file + " was removed (the directory was deleted or "
                    + "replaced by another process)");
            }
            if (!Objects.equals(attrs.fileKey(), fileKey)) {
                return fence(tailOffset, 0, "its writer history " + file + " was replaced by another writer");
            }
            final long size = attrs.size();
            if (size <= scanned) {
                return null;
            }
            final ByteBuffer buf = ByteBuffer.allocate(ENTRY_LENGTH);
            while (scanned + ENTRY_LENGTH <= size) {
                buf.clear();
                readFully(buf, scanned);
                final long other = buf.getLong(WriterHistoryDescriptor.ENTRY_SESSION_OFFSET);
                // Only a newer START fences: the older session stops, the newer one carries on. An older session's
                // END or FENCED after our START means it has stopped; verify reports the overlap.
                if (other != session && buf.getShort(WriterHistoryDescriptor.ENTRY_KIND_OFFSET) == WriterHistoryDescriptor.START) {
                    final long otherPid = buf.getLong(WriterHistoryDescriptor.ENTRY_PID_OFFSET);
                    final long otherOffset = buf.getLong(WriterHistoryDescriptor.ENTRY_OFFSET_OFFSET);
                    return fence(tailOffset, other, "another writer (session " + Long.toHexString(other) + ", pid "
                        + otherPid + ") started writing to this log at offset " + otherOffset + " while this one "
                        + "(session " + Long.toHexString(session) + ", pid " + pid + ") was writing");
                }
                scanned += ENTRY_LENGTH;
            }
            return null;
        } catch (final IOException e) {
            LOG.warn("writer history {}: fence check failed, retried at the next flush: {}", file, e.toString());
            return null;
        }
    }

    private StorageException fence(final long tailOffset, final long other, final String why) {
        fenced = StorageException.concurrentWriter(dir, "log " + dir + " stopped writing: " + why
            + " (its own tail: offset " + tailOffset + "); records either of them wrote since then may have been "
            + "overwritten by the other. Stop the other writer (two brokers on one data_dir?), then check the log with "
            + "`felix log verify`");
        LOG.error("{}", fenced.getMessage());
        try {
            write(WriterHistoryDescriptor.FENCED, tailOffset, other);
        } catch (final IOException e) {
            LOG.warn("writer history {}: could not record the fence: {}", file, e.toString());
        }
        return fenced;
    }

    /** After a clean close whose final flush succeeded: END with the tail. Always closes the file. */
    synchronized void end(final long tailOffset, final boolean clean) {
        if (closed) {
            return;
        }
        try {
            if (started && clean && fenced == null && check(tailOffset) == null) {
                write(WriterHistoryDescriptor.END, tailOffset, 0);
            }
        } catch (final IOException e) {
            LOG.warn("writer history {}: could not record the end of session {}: {}", file, Long.toHexString(session),
                e.toString());
        } finally {
            closed = true;
            closeQuietly();
        }
    }

    private void closeQuietly() {
        for (final FileChannel ch : new FileChannel[] {channel, reader}) {
            if (ch != null) {
                try {
                    ch.close();
                } catch (final IOException ignored) {
                    // closing a history file: nothing else to do
                }
            }
        }
    }

    private void write(final short kind, final long offset, final long other) throws IOException {
        final ByteBuffer e = encodeEntry(kind, session, pid, offset, clock.getAsLong(), other);
        while (e.hasRemaining()) {
            channel.write(e); // O_APPEND: lands whole at the end, after any other writer's entries
        }
    }

    private void readFully(final ByteBuffer buf, final long position) throws IOException {
        long pos = position;
        while (buf.hasRemaining()) {
            final int n = reader.read(buf, pos);
            if (n < 0) {
                throw new IOException("writer history " + file + " ended at " + pos);
            }
            pos += n;
        }
        buf.flip();
    }

    private boolean validHeader() throws IOException {
        if (Files.size(file) < HEADER_LENGTH) {
            return false;
        }
        final byte[] head = new byte[HEADER_LENGTH];
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            final ByteBuffer b = ByteBuffer.wrap(head);
            while (b.hasRemaining() && ch.read(b, b.position()) >= 0) {
                // read the header
            }
        }
        return headerProblem(head) == null;
    }

    /** Creates the file whole (header and {@code entries}) without replacing one that appeared meanwhile. */
    private void create(final List<ByteBuffer> entries) throws IOException {
        final Path tmp = writeTmp(entries);
        try {
            Files.createLink(file, tmp); // atomic and never replaces: a concurrent creator's file wins
        } catch (final FileAlreadyExistsException other) {
            // another session created it first: use theirs
        } catch (final UnsupportedOperationException noLinks) {
            if (!Files.exists(file)) {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
        SegmentFiles.fsyncDirectory(dir);
    }

    /**
     * Writes a new file's content under a name of this writer's own: two sessions creating the file at once (two
     * instances on one directory, the case this history exists to report) must not truncate or delete each
     * other's content before it is linked into place.
     */
    private Path writeTmp(final List<ByteBuffer> entries) throws IOException {
        final Path tmp = dir.resolve(WriterHistoryDescriptor.TMP_NAME + "-" + ProcessHandle.current().pid() + "-"
            + TMP_SEQUENCE.incrementAndGet());
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
            final ByteBuffer h = header();
            while (h.hasRemaining()) {
                ch.write(h);
            }
            for (final ByteBuffer e : entries) {
                final ByteBuffer d = e.duplicate();
                while (d.hasRemaining()) {
                    ch.write(d);
                }
            }
            ch.force(true);
        }
        return tmp;
    }

    static ByteBuffer header() {
        final ByteBuffer b = ByteBuffer.allocate(HEADER_LENGTH);
        b.putInt(WriterHistoryDescriptor.MAGIC_OFFSET, WriterHistoryDescriptor.MAGIC);
        b.putShort(WriterHistoryDescriptor.VERSION_OFFSET, WriterHistoryDescriptor.VERSION);
        b.putShort(WriterHistoryDescriptor.FLAGS_OFFSET, (short) 0);
        b.putInt(WriterHistoryDescriptor.RESERVED_OFFSET, 0);
        b.putInt(HEADER_CRC_OFFSET, crc(b.array(), 0, HEADER_CRC_COVERED));
        return b;
    }

    /** Why a header is invalid, or null. */
    static String headerProblem(final byte[] head) {
        final ByteBuffer b = ByteBuffer.wrap(head);
        if (head.length < HEADER_LENGTH) {
            return "header needs " + HEADER_LENGTH + " bytes, file has " + head.length;
        }
        if (b.getInt(WriterHistoryDescriptor.MAGIC_OFFSET) != WriterHistoryDescriptor.MAGIC) {
            return String.format("magic 0x%08X, expected 0x%08X", b.getInt(0), WriterHistoryDescriptor.MAGIC);
        }
        if (b.getShort(WriterHistoryDescriptor.VERSION_OFFSET) != WriterHistoryDescriptor.VERSION) {
            return "version " + b.getShort(WriterHistoryDescriptor.VERSION_OFFSET);
        }
        if (b.getInt(HEADER_CRC_OFFSET) != crc(head, 0, HEADER_CRC_COVERED)) {
            return "header crc mismatch";
        }
        return null;
    }

    static ByteBuffer encodeEntry(final short kind, final long session, final long pid, final long offset,
                                  final long timeMicros, final long other) {
        final ByteBuffer b = ByteBuffer.allocate(ENTRY_LENGTH);
        b.putShort(WriterHistoryDescriptor.ENTRY_KIND_OFFSET, kind);
        b.putShort(WriterHistoryDescriptor.ENTRY_FLAGS_OFFSET, (short) 0);
        b.putLong(WriterHistoryDescriptor.ENTRY_SESSION_OFFSET, session);
        b.putLong(WriterHistoryDescriptor.ENTRY_PID_OFFSET, pid);
        b.putLong(WriterHistoryDescriptor.ENTRY_OFFSET_OFFSET, offset);
        b.putLong(WriterHistoryDescriptor.ENTRY_TIME_OFFSET, timeMicros);
        b.putLong(WriterHistoryDescriptor.ENTRY_OTHER_SESSION_OFFSET, other);
        b.putInt(ENTRY_CRC_OFFSET, crc(b.array(), 0, ENTRY_CRC_COVERED));
        return b;
    }

    /** Decodes a whole file for verification: never throws for bad bytes, lists them as problems. */
    static Decoded decode(final byte[] bytes) {
        final List<Entry> out = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        final List<Long> positions = new ArrayList<>();
        final String header = headerProblem(bytes);
        if (header != null) {
            problems.add("writer history header: " + header);
            positions.add(0L);
            return new Decoded(out, problems, positions);
        }
        final ByteBuffer b = ByteBuffer.wrap(bytes);
        final int whole = (bytes.length - HEADER_LENGTH) / ENTRY_LENGTH;
        for (int i = 0; i < whole; i++) {
            final int at = (int) WriterHistoryDescriptor.entryPosition(i);
            if (b.getInt(at + ENTRY_CRC_OFFSET) != crc(bytes, at, ENTRY_CRC_COVERED)) {
                if (i == whole - 1 && (bytes.length - HEADER_LENGTH) % ENTRY_LENGTH == 0) {
                    break; // torn last entry: a crash mid-append
                }
                problems.add("writer history entry " + i + " fails its crc");
                positions.add((long) at);
                continue;
            }
            out.add(new Entry(at, b.getShort(at + WriterHistoryDescriptor.ENTRY_KIND_OFFSET),
                b.getLong(at + WriterHistoryDescriptor.ENTRY_SESSION_OFFSET), b.getLong(at + WriterHistoryDescriptor.ENTRY_PID_OFFSET),
                b.getLong(at + WriterHistoryDescriptor.ENTRY_OFFSET_OFFSET), b.getLong(at + WriterHistoryDescriptor.ENTRY_TIME_OFFSET),
                b.getLong(at + WriterHistoryDescriptor.ENTRY_OTHER_SESSION_OFFSET)));
        }
        return new Decoded(out, problems, positions);
    }

    private static int crc(final byte[] bytes, final int from, final int length) {
        final CRC32 c = new CRC32();
        c.update(bytes, from, length);
        return (int) c.getValue();
    }
}
