package dev.felix.storage;

/**
 * <b>Constants only; thread-safe.</b>
 *
 * <p>Layout of the 32-byte segment file header, format v2 (big-endian). Written once when a segment is
 * created; it is part of the bytes the first flush of that segment forces to the device, so nothing in the
 * segment is reported durable before its header is.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                     magic 0x464C5347 "FLSG"                   |  0
 *  +-------------------------------+-------------------------------+
 *  |          version = 2          |           flags = 0           |  4
 *  +-------------------------------+-------------------------------+
 *  |                                                               |  8
 *  +                 base_offset (offset of first record)          +
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                                                               | 16
 *  +            created_at_micros (wall clock, informational)      +
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                  header_crc = CRC32(bytes 0..24)              | 24
 *  +---------------------------------------------------------------+
 *  |                 reserved = 0 (not validated on read)          | 28
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * Decode order: length &ge; 32 (else {@link CorruptionKind#TRUNCATED}), magic, version, flags, header CRC.
 */
final class SegmentHeaderDescriptor {
    /** "FLSG". */
    static final int MAGIC = 0x464C5347;
    /** The only version this code reads or writes. */
    static final short VERSION = 2;
    /** Total header length; the first record starts here. */
    static final int LENGTH = 32;

    /** Offset of the 4-byte magic. */
    static final int MAGIC_OFFSET = 0;
    /** Offset of the 2-byte version. */
    static final int VERSION_OFFSET = 4;
    /** Offset of the 2-byte flags (must be 0). */
    static final int FLAGS_OFFSET = 6;
    /** Offset of the 8-byte base offset. */
    static final int BASE_OFFSET_OFFSET = 8;
    /** Offset of the 8-byte creation time in microseconds. */
    static final int CREATED_AT_OFFSET = 16;
    /** Offset of the 4-byte header CRC. */
    static final int HEADER_CRC_OFFSET = 24;
    /** Offset of the 4 reserved bytes. */
    static final int RESERVED_OFFSET = 28;
    /** Number of leading bytes the header CRC covers. */
    static final int CRC_COVERED_LENGTH = 24;

    private SegmentHeaderDescriptor() {
    }
}
