package dev.felix.storage;

/**
 * <b>Constants only; thread-safe.</b>
 *
 * <p>Layout of one record, format v2 (big-endian): a 28-byte header followed by the payload. Records sit back
 * to back after the {@link SegmentHeaderDescriptor segment header}; the next record starts at
 * {@code position + 28 + payload_len}, so a scan can skip payloads without reading them.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                payload_len (&le; max payload, 64 MiB)           |  0
 *  +---------------------------------------------------------------+
 *  |                                                               |  4
 *  +          offset (previous + 1, within and across segments)    +
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                                                               | 12
 *  +      timestamp_micros (per record; append: one per batch)     +
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                header_crc = CRC32(bytes 0..20)                | 20
 *  +---------------------------------------------------------------+
 *  |           checksum = CRC32(bytes 0..24 || payload)            | 24
 *  +---------------------------------------------------------------+
 *  |                    payload (payload_len bytes)              ...  28
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * Decode order: at least 28 bytes (else {@link CorruptionKind#TRUNCATED}); header CRC
 * ({@link CorruptionKind#RECORD_HEADER_CHECKSUM}) &mdash; verified <em>before</em> the length is trusted;
 * length bound ({@link CorruptionKind#RECORD_TOO_LARGE}) &mdash; checked before anything is allocated;
 * 28 + length bytes present (else {@link CorruptionKind#TRUNCATED}); checksum
 * ({@link CorruptionKind#RECORD_CHECKSUM}); offset continuity ({@link CorruptionKind#OFFSET_OUT_OF_ORDER}).
 */
final class RecordDescriptor {
    /** Length of the record header; the payload follows. */
    static final int HEADER_LENGTH = 28;

    /** Offset of the 4-byte payload length. */
    static final int PAYLOAD_LENGTH_OFFSET = 0;
    /** Offset of the 8-byte record offset. */
    static final int OFFSET_OFFSET = 4;
    /** Offset of the 8-byte timestamp in microseconds. */
    static final int TIMESTAMP_OFFSET = 12;
    /** Offset of the 4-byte header CRC. */
    static final int HEADER_CRC_OFFSET = 20;
    /** Offset of the 4-byte record checksum. */
    static final int CHECKSUM_OFFSET = 24;
    /** Number of leading header bytes the header CRC covers. */
    static final int HEADER_CRC_COVERED = 20;
    /** Number of leading header bytes the record checksum covers (the payload follows them). */
    static final int CHECKSUM_COVERED_HEADER = 24;

    /** Default (and upstream) bound on one payload: 64 MiB. */
    static final int DEFAULT_MAX_PAYLOAD_BYTES = 64 * 1024 * 1024;

    private RecordDescriptor() {
    }

    /** Bytes one record with a {@code payloadLength}-byte payload occupies in a segment. */
    static long frameLength(final long payloadLength) {
        return HEADER_LENGTH + payloadLength;
    }
}
