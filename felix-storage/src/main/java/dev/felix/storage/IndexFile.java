package dev.felix.storage;

import static dev.felix.storage.IndexDescriptor.BASE_OFFSET_OFFSET;
import static dev.felix.storage.IndexDescriptor.ENTRY_LENGTH;
import static dev.felix.storage.IndexDescriptor.ENTRY_OFFSET_OFFSET;
import static dev.felix.storage.IndexDescriptor.ENTRY_POSITION_OFFSET;
import static dev.felix.storage.IndexDescriptor.FLAGS_OFFSET;
import static dev.felix.storage.IndexDescriptor.HEADER_LENGTH;
import static dev.felix.storage.IndexDescriptor.MAGIC;
import static dev.felix.storage.IndexDescriptor.MAGIC_OFFSET;
import static dev.felix.storage.IndexDescriptor.RESERVED_OFFSET;
import static dev.felix.storage.IndexDescriptor.VERSION;
import static dev.felix.storage.IndexDescriptor.VERSION_OFFSET;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * <b>Stateless; thread-safety is that of the channel passed in.</b>
 *
 * <p>Encoding, writing and (distrustful) loading of {@code .index} files ({@link IndexDescriptor}).
 */
final class IndexFile {
    /** Refuse to load index files claiming more entries than this (a 256 MiB segment at 4 KiB spacing has 64 Ki). */
    private static final long MAX_LOADED_ENTRIES = 64L * 1024 * 1024;

    private IndexFile() {
    }

    /** Result of {@link #load}: the entries as interleaved pairs, or why the file cannot be used. */
    record Loaded(long[] entries, String problem) {
        boolean usable() {
            return problem == null;
        }

        int count() {
            return entries == null ? 0 : entries.length / 2;
        }
    }

    /** The 24-byte header for a segment with {@code baseOffset}. */
    static ByteBuffer header(final long baseOffset) {
        final ByteBuffer buf = ByteBuffer.allocate(HEADER_LENGTH);
        buf.putInt(MAGIC_OFFSET, MAGIC);
        buf.putShort(VERSION_OFFSET, VERSION);
        buf.putShort(FLAGS_OFFSET, (short) 0);
        buf.putLong(BASE_OFFSET_OFFSET, baseOffset);
        buf.putLong(RESERVED_OFFSET, 0L);
        return buf;
    }

    /** The whole file content for {@code entries} (interleaved pairs). */
    static ByteBuffer encode(final long baseOffset, final long[] entries, final int count) {
        final ByteBuffer buf = ByteBuffer.allocate(HEADER_LENGTH + ENTRY_LENGTH * count);
        buf.put(header(baseOffset));
        for (int i = 0; i < count; i++) {
            buf.putLong(entries[2 * i]).putLong(entries[2 * i + 1]);
        }
        return buf.flip();
    }

    /** Entries {@code [from, to)} of {@code index}, ready to be written at {@link IndexDescriptor#entryPosition(int) entryPosition(from)}. */
    static ByteBuffer encodeEntries(final SparseIndex index, final int from, final int to) {
        final ByteBuffer buf = ByteBuffer.allocate(ENTRY_LENGTH * (to - from));
        for (int i = from; i < to; i++) {
            buf.putLong(index.offsetAt(i)).putLong(index.positionAt(i));
        }
        return buf.flip();
    }

    /** Replaces the file's content with the header and {@code index}'s entries. */
    static void rewrite(final SegmentChannel channel, final long baseOffset, final SparseIndex index) throws IOException {
        final long[] e = index.snapshot();
        channel.writeFully(encode(baseOffset, e, e.length / 2), 0);
        channel.truncate(HEADER_LENGTH + (long) ENTRY_LENGTH * (e.length / 2));
    }

    /**
     * Loads and validates an index: header magic, version and base offset; whole entries only (a torn final
     * entry is ignored); offsets and positions strictly ascending; the first entry is the segment's first
     * record; every position lies inside the segment. Any problem makes the result unusable.
     */
    static Loaded load(final ReadSource source, final long fileSize, final long baseOffset, final long segmentLength)
        throws IOException {
        if (fileSize < HEADER_LENGTH) {
            return new Loaded(null, "index shorter than its " + HEADER_LENGTH + "-byte header (" + fileSize + " bytes)");
        }
        final long n = (fileSize - HEADER_LENGTH) / ENTRY_LENGTH;
        if (n > MAX_LOADED_ENTRIES) {
            return new Loaded(null, "index claims " + n + " entries");
        }
        final ByteBuffer buf = ByteBuffer.allocate((int) (HEADER_LENGTH + n * ENTRY_LENGTH));
        source.readFully(buf, 0);
        if (buf.getInt(MAGIC_OFFSET) != MAGIC) {
            return new Loaded(null, "bad index magic");
        }
        if (buf.getShort(VERSION_OFFSET) != VERSION) {
            return new Loaded(null, "bad index version " + buf.getShort(VERSION_OFFSET));
        }
        if (buf.getLong(BASE_OFFSET_OFFSET) != baseOffset) {
            return new Loaded(null, "index base offset " + buf.getLong(BASE_OFFSET_OFFSET) + " != segment base " + baseOffset);
        }
        final long[] entries = new long[(int) (2 * n)];
        long prevOffset = Long.MIN_VALUE;
        long prevPosition = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            final int at = HEADER_LENGTH + ENTRY_LENGTH * i;
            final long off = buf.getLong(at + ENTRY_OFFSET_OFFSET);
            final long pos = buf.getLong(at + ENTRY_POSITION_OFFSET);
            if (i == 0 && (off != baseOffset || pos != SegmentHeaderDescriptor.LENGTH)) {
                return new Loaded(null, "first index entry (" + off + ", " + pos + ") is not the first record");
            }
            if (off <= prevOffset || pos <= prevPosition || pos >= segmentLength) {
                return new Loaded(null, "index entry " + i + " (" + off + ", " + pos + ") out of order or outside the segment");
            }
            entries[2 * i] = off;
            entries[2 * i + 1] = pos;
            prevOffset = off;
            prevPosition = pos;
        }
        return new Loaded(entries, null);
    }
}
