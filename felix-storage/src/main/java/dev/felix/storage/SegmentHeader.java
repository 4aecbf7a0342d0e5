package dev.felix.storage;

import static dev.felix.storage.SegmentHeaderDescriptor.BASE_OFFSET_OFFSET;
import static dev.felix.storage.SegmentHeaderDescriptor.CREATED_AT_OFFSET;
import static dev.felix.storage.SegmentHeaderDescriptor.CRC_COVERED_LENGTH;
import static dev.felix.storage.SegmentHeaderDescriptor.FLAGS_OFFSET;
import static dev.felix.storage.SegmentHeaderDescriptor.HEADER_CRC_OFFSET;
import static dev.felix.storage.SegmentHeaderDescriptor.LENGTH;
import static dev.felix.storage.SegmentHeaderDescriptor.MAGIC;
import static dev.felix.storage.SegmentHeaderDescriptor.MAGIC_OFFSET;
import static dev.felix.storage.SegmentHeaderDescriptor.RESERVED_OFFSET;
import static dev.felix.storage.SegmentHeaderDescriptor.VERSION;
import static dev.felix.storage.SegmentHeaderDescriptor.VERSION_OFFSET;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * <b>Immutable; thread-safe.</b>
 *
 * <p>The decoded segment header (see {@link SegmentHeaderDescriptor} for the layout).
 *
 * @param baseOffset      offset of the segment's first record
 * @param createdAtMicros creation wall-clock time, informational only
 */
record SegmentHeader(long baseOffset, long createdAtMicros) {

    /** Result of {@link #decode}: either a header or the first check that failed. */
    sealed interface Decoded permits Valid, Invalid {
    }

    /** The header passed every check. */
    record Valid(SegmentHeader header) implements Decoded {
    }

    /** The header failed {@code kind}; {@code detail} says how. */
    record Invalid(CorruptionKind kind, String detail) implements Decoded {
    }

    /** The 32 header bytes in a new buffer, positioned at 0. */
    ByteBuffer encode() {
        final ByteBuffer buf = ByteBuffer.allocate(LENGTH);
        buf.putInt(MAGIC_OFFSET, MAGIC);
        buf.putShort(VERSION_OFFSET, VERSION);
        buf.putShort(FLAGS_OFFSET, (short) 0);
        buf.putLong(BASE_OFFSET_OFFSET, baseOffset);
        buf.putLong(CREATED_AT_OFFSET, createdAtMicros);
        buf.putInt(HEADER_CRC_OFFSET, crc(buf.array(), 0));
        buf.putInt(RESERVED_OFFSET, 0);
        return buf;
    }

    /**
     * Decodes a header from the first {@code available} bytes of {@code bytes} (which may be fewer than 32
     * when the file is short) in the format's decode order.
     */
    static Decoded decode(final byte[] bytes, final int available) {
        if (available < LENGTH) {
            return new Invalid(CorruptionKind.TRUNCATED, "segment header needs " + LENGTH + " bytes, file has " + available);
        }
        final ByteBuffer buf = ByteBuffer.wrap(bytes, 0, LENGTH);
        final int magic = buf.getInt(MAGIC_OFFSET);
        if (magic != MAGIC) {
            return new Invalid(CorruptionKind.BAD_MAGIC, String.format("magic 0x%08X, expected 0x%08X", magic, MAGIC));
        }
        final short version = buf.getShort(VERSION_OFFSET);
        if (version != VERSION) {
            return new Invalid(CorruptionKind.BAD_VERSION, "version " + version + ", expected " + VERSION);
        }
        final short flags = buf.getShort(FLAGS_OFFSET);
        if (flags != 0) {
            return new Invalid(CorruptionKind.BAD_FLAGS, "flags 0x" + Integer.toHexString(flags & 0xFFFF) + ", expected 0");
        }
        final int stored = buf.getInt(HEADER_CRC_OFFSET);
        final int computed = crc(bytes, 0);
        if (stored != computed) {
            return new Invalid(CorruptionKind.SEGMENT_HEADER_CHECKSUM,
                String.format("header crc 0x%08X, computed 0x%08X", stored, computed));
        }
        return new Valid(new SegmentHeader(buf.getLong(BASE_OFFSET_OFFSET), buf.getLong(CREATED_AT_OFFSET)));
    }

    private static int crc(final byte[] bytes, final int from) {
        final CRC32 crc = new CRC32();
        crc.update(bytes, from, CRC_COVERED_LENGTH);
        return (int) crc.getValue();
    }
}
