package dev.felix.storage;

import static dev.felix.storage.EpochHistoryDescriptor.ENTRY_CRC_COVERED;
import static dev.felix.storage.EpochHistoryDescriptor.ENTRY_CRC_OFFSET;
import static dev.felix.storage.EpochHistoryDescriptor.ENTRY_EPOCH_OFFSET;
import static dev.felix.storage.EpochHistoryDescriptor.ENTRY_FLAGS_OFFSET;
import static dev.felix.storage.EpochHistoryDescriptor.ENTRY_LENGTH;
import static dev.felix.storage.EpochHistoryDescriptor.ENTRY_START_OFFSET;
import static dev.felix.storage.EpochHistoryDescriptor.HEADER_CRC_COVERED;
import static dev.felix.storage.EpochHistoryDescriptor.HEADER_CRC_OFFSET;
import static dev.felix.storage.EpochHistoryDescriptor.HEADER_LENGTH;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * <b>Reads are lock-free and thread-safe; mutations are serialised by the owning log</b> (its epoch lock).
 *
 * <p>The epoch history of one log ({@link EpochHistoryDescriptor}): an immutable list of entries published
 * through a volatile field, and the file that stores it. Invariants of the list: epochs strictly ascending,
 * start offsets non-decreasing, every start &le; the log's tail.
 */
final class EpochHistory {
    private static final Logger LOG = LoggerFactory.getLogger(EpochHistory.class);

    private final Path dir;
    private final Path file;
    private final ChannelOpener opener;
    private volatile List<EpochEntry> entries;
    /** Bytes of the file that hold the header and the valid entries; 0 when the file does not exist. */
    private long validLength;

    private EpochHistory(final Path dir, final ChannelOpener opener, final List<EpochEntry> entries,
                         final long validLength) {
        this.dir = dir;
        this.file = dir.resolve(EpochHistoryDescriptor.FILE_NAME);
        this.opener = opener;
        this.entries = List.copyOf(entries);
        this.validLength = validLength;
    }

    /** Loads (and if needed repairs) the history of {@code dir}; see the load rules in the descriptor. */
    static EpochHistory load(final Path dir, final ChannelOpener opener, final long tailOffset) throws IOException {
        Files.deleteIfExists(dir.resolve(EpochHistoryDescriptor.TMP_NAME));
        final Path file = dir.resolve(EpochHistoryDescriptor.FILE_NAME);
        if (!Files.exists(file)) {
            return new EpochHistory(dir, opener, List.of(), 0);
        }
        final long size = Files.size(file);
        if (size > EpochHistoryDescriptor.MAX_FILE_BYTES) {
            throw StorageException.corruption(CorruptionKind.RECORD_TOO_LARGE, file, 0, "epoch history of " + size
                + " bytes exceeds " + EpochHistoryDescriptor.MAX_FILE_BYTES);
        }
        final byte[] bytes = Files.readAllBytes(file);
        final Parsed parsed = parse(file, bytes);
        final EpochHistory h = new EpochHistory(dir, opener, parsed.entries, parsed.validLength);
        if (parsed.validLength < bytes.length) {
            LOG.warn("epoch history {}: cut a torn last entry at byte position {} ({} bytes) left by an interrupted "
                + "append", file, parsed.validLength, bytes.length - parsed.validLength);
            try (FileChannel ch = opener.open(file, Set.of(StandardOpenOption.WRITE))) {
                ch.truncate(parsed.validLength);
                ch.force(true);
            }
        }
        final List<EpochEntry> clamped = new ArrayList<>(parsed.entries.size());
        boolean changed = false;
        for (final EpochEntry e : parsed.entries) {
            if (e.startOffset() > tailOffset) {
                clamped.add(new EpochEntry(e.epoch(), tailOffset));
                changed = true;
            } else {
                clamped.add(e);
            }
        }
        if (changed) {
            LOG.warn("epoch history {}: entries starting past the recovered tail {} (records lost with an unforced "
                + "tail) now start at the tail", file, tailOffset);
            h.rewrite(clamped);
        }
        return h;
    }

    /** Entries and the length of the bytes that hold them. */
    record Parsed(List<EpochEntry> entries, long validLength) {
    }

    /**
     * Validates {@code bytes} as an epoch history; a torn last entry is left out of the result (its bytes are
     * past {@code validLength}). Throws CORRUPTION naming {@code file} and the byte position otherwise.
     */
    static Parsed parse(final Path file, final byte[] bytes) {
        if (bytes.length < HEADER_LENGTH) {
            throw StorageException.corruption(CorruptionKind.TRUNCATED, file, 0, "epoch history header needs "
                + HEADER_LENGTH + " bytes, file has " + bytes.length);
        }
        final ByteBuffer buf = ByteBuffer.wrap(bytes);
        if (buf.getInt(EpochHistoryDescriptor.MAGIC_OFFSET) != EpochHistoryDescriptor.MAGIC) {
            throw StorageException.corruption(CorruptionKind.BAD_MAGIC, file, 0, String.format(
                "magic 0x%08X, expected 0x%08X", buf.getInt(0), EpochHistoryDescriptor.MAGIC));
        }
        if (buf.getShort(EpochHistoryDescriptor.VERSION_OFFSET) != EpochHistoryDescriptor.VERSION) {
            throw StorageException.corruption(CorruptionKind.BAD_VERSION, file, EpochHistoryDescriptor.VERSION_OFFSET,
                "version " + buf.getShort(EpochHistoryDescriptor.VERSION_OFFSET) + ", expected " + EpochHistoryDescriptor.VERSION);
        }
        if (buf.getShort(EpochHistoryDescriptor.FLAGS_OFFSET) != 0 || buf.getInt(EpochHistoryDescriptor.RESERVED_OFFSET) != 0) {
            throw StorageException.corruption(CorruptionKind.BAD_FLAGS, file, EpochHistoryDescriptor.FLAGS_OFFSET,
                "flags or reserved bytes are not 0");
        }
        if (buf.getInt(HEADER_CRC_OFFSET) != crc(bytes, 0, HEADER_CRC_COVERED)) {
            throw StorageException.corruption(CorruptionKind.SEGMENT_HEADER_CHECKSUM, file, HEADER_CRC_OFFSET,
                "epoch history header crc mismatch");
        }
        final int whole = (bytes.length - HEADER_LENGTH) / ENTRY_LENGTH;
        final boolean partialAfter = (bytes.length - HEADER_LENGTH) % ENTRY_LENGTH != 0;
        final List<EpochEntry> out = new ArrayList<>(whole);
        long valid = HEADER_LENGTH;
        for (int i = 0; i < whole; i++) {
            final int at = (int) EpochHistoryDescriptor.entryPosition(i);
            final boolean last = i == whole - 1 && !partialAfter;
            if (buf.getInt(at + ENTRY_CRC_OFFSET) != crc(bytes, at, ENTRY_CRC_COVERED)) {
                if (last) {
                    break; // torn by a crash during its append: nothing follows it
                }
                throw StorageException.corruption(CorruptionKind.RECORD_CHECKSUM, file, at, "epoch history entry "
                    + i + " fails its crc" + (i == whole - 1 ? " and is followed by " + (bytes.length - at - ENTRY_LENGTH)
                    + " more bytes" : " and entries follow it"));
            }
            final long epoch = buf.getLong(at + ENTRY_EPOCH_OFFSET);
            final long start = buf.getLong(at + ENTRY_START_OFFSET);
            if (buf.getInt(at + ENTRY_FLAGS_OFFSET) != 0 || epoch < 0 || start < 0) {
                throw StorageException.corruption(CorruptionKind.BAD_FLAGS, file, at, "epoch history entry " + i
                    + " (epoch " + epoch + ", start " + start + ") has non-zero flags or a negative field");
            }
            if (!out.isEmpty()) {
                final EpochEntry prev = out.get(out.size() - 1);
                if (epoch <= prev.epoch() || start < prev.startOffset()) {
                    throw StorageException.corruption(CorruptionKind.OFFSET_OUT_OF_ORDER, file, at, "epoch history entry "
                        + i + " (epoch " + epoch + ", start " + start + ") does not follow (epoch " + prev.epoch()
                        + ", start " + prev.startOffset() + "): epochs must ascend and starts must not decrease");
                }
            }
            out.add(new EpochEntry(epoch, start));
            valid = at + ENTRY_LENGTH;
        }
        return new Parsed(List.copyOf(out), valid);
    }

    /** The entries, oldest first. */
    List<EpochEntry> entries() {
        return entries;
    }

    /** The newest epoch, or -1 when none was recorded. */
    long lastEpoch() {
        final List<EpochEntry> e = entries;
        return e.isEmpty() ? -1 : e.get(e.size() - 1).epoch();
    }

    /** The epoch of the last entry starting at or before {@code offset}; empty when none does. */
    OptionalLong epochOf(final long offset) {
        final List<EpochEntry> e = entries;
        int lo = 0;
        int hi = e.size() - 1;
        int found = -1;
        while (lo <= hi) {
            final int mid = (lo + hi) >>> 1;
            if (e.get(mid).startOffset() <= offset) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found < 0 ? OptionalLong.empty() : OptionalLong.of(e.get(found).epoch());
    }

    /** See {@link SegmentedLog#endOffsetOf(long)}. */
    long endOffsetOf(final long epoch, final long tailOffset) {
        final List<EpochEntry> e = entries;
        if (e.isEmpty() || epoch > e.get(e.size() - 1).epoch()) {
            return -1;
        }
        if (epoch == e.get(e.size() - 1).epoch()) {
            return tailOffset;
        }
        for (final EpochEntry entry : e) {
            if (entry.epoch() > epoch) {
                return entry.startOffset();
            }
        }
        return tailOffset; // unreachable: the last entry's epoch is greater
    }

    /** Appends {@code (epoch, start)} and forces it. Caller checked the ordering and holds the epoch lock. */
    void append(final long epoch, final long start) throws IOException {
        final List<EpochEntry> next = new ArrayList<>(entries);
        next.add(new EpochEntry(epoch, start));
        if (validLength == 0) {
            rewrite(next);
            return;
        }
        try (FileChannel ch = opener.open(file, Set.of(StandardOpenOption.WRITE))) {
            final ByteBuffer buf = encodeEntry(epoch, start);
            long pos = validLength;
            while (buf.hasRemaining()) {
                pos += ch.write(buf, pos);
            }
            ch.force(false);
        }
        validLength += ENTRY_LENGTH;
        entries = List.copyOf(next);
    }

    /** Drops entries starting at or after {@code offset}; rewrites the file when something changed. */
    void truncateFrom(final long offset) throws IOException {
        final List<EpochEntry> keep = new ArrayList<>();
        for (final EpochEntry e : entries) {
            if (e.startOffset() < offset) {
                keep.add(e);
            }
        }
        if (keep.size() != entries.size()) {
            rewrite(keep);
        }
    }

    /** Drops entries wholly below {@code base} (the next entry starts at or below it); keeps the one covering it. */
    void trimBelow(final long base) throws IOException {
        final List<EpochEntry> e = entries;
        int first = 0;
        while (first + 1 < e.size() && e.get(first + 1).startOffset() <= base) {
            first++;
        }
        if (first > 0) {
            rewrite(e.subList(first, e.size()));
        }
    }

    /** Replaces the history with no entries (the file stays, empty, if it existed). */
    void clear() throws IOException {
        if (validLength > 0 || !entries.isEmpty()) {
            rewrite(List.of());
        }
    }

    /** Writes {@code next} as the whole file: tmp, force, rename, force the directory. */
    void rewrite(final List<EpochEntry> next) throws IOException {
        final Path tmp = dir.resolve(EpochHistoryDescriptor.TMP_NAME);
        final ByteBuffer buf = encode(next);
        final int length = buf.remaining();
        try (FileChannel ch = opener.open(tmp, Set.of(StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE))) {
            long pos = 0;
            while (buf.hasRemaining()) {
                pos += ch.write(buf, pos);
            }
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        SegmentFiles.fsyncDirectory(dir);
        validLength = length;
        entries = List.copyOf(next);
    }

    /** Writes an empty history file for {@code dir} (used when recovery finishes a reset). */
    static void writeEmpty(final Path dir, final ChannelOpener opener) throws IOException {
        new EpochHistory(dir, opener, List.of(), 0).rewrite(List.of());
    }

    /** The whole file content for {@code list}. */
    static ByteBuffer encode(final List<EpochEntry> list) {
        final ByteBuffer buf = ByteBuffer.allocate(HEADER_LENGTH + ENTRY_LENGTH * list.size());
        buf.putInt(EpochHistoryDescriptor.MAGIC_OFFSET, EpochHistoryDescriptor.MAGIC);
        buf.putShort(EpochHistoryDescriptor.VERSION_OFFSET, EpochHistoryDescriptor.VERSION);
        buf.putShort(EpochHistoryDescriptor.FLAGS_OFFSET, (short) 0);
        buf.putInt(EpochHistoryDescriptor.RESERVED_OFFSET, 0);
        buf.putInt(HEADER_CRC_OFFSET, crc(buf.array(), 0, HEADER_CRC_COVERED));
        buf.position(HEADER_LENGTH);
        for (final EpochEntry e : list) {
            buf.put(encodeEntry(e.epoch(), e.startOffset()));
        }
        return buf.flip();
    }

    /** One 24-byte entry. */
    static ByteBuffer encodeEntry(final long epoch, final long start) {
        final ByteBuffer b = ByteBuffer.allocate(ENTRY_LENGTH);
        b.putLong(ENTRY_EPOCH_OFFSET, epoch);
        b.putLong(ENTRY_START_OFFSET, start);
        b.putInt(ENTRY_FLAGS_OFFSET, 0);
        b.putInt(ENTRY_CRC_OFFSET, crc(b.array(), 0, ENTRY_CRC_COVERED));
        return b;
    }

    private static int crc(final byte[] bytes, final int from, final int length) {
        final CRC32 c = new CRC32();
        c.update(bytes, from, length);
        return (int) c.getValue();
    }
}
