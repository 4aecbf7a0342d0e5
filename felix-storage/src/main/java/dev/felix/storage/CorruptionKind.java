package dev.felix.storage;

/**
 * <b>Immutable; thread-safe.</b>
 *
 * <p>Which validation failed when on-disk bytes are rejected. Mirrors the decode order of the v2 format
 * (see {@link RecordDescriptor} and {@link SegmentHeaderDescriptor}): length, magic, version, flags,
 * header CRC, then for records header CRC, bound, length, checksum and offset continuity.
 */
public enum CorruptionKind {
    /** The bytes end before a complete header or record: an unfinished write (repairable at the tail). */
    TRUNCATED,
    /** Segment or index header magic is wrong. */
    BAD_MAGIC,
    /** Segment or index header version is not 2. */
    BAD_VERSION,
    /** Segment header flags are non-zero (never masked). */
    BAD_FLAGS,
    /** Segment header CRC mismatch. */
    SEGMENT_HEADER_CHECKSUM,
    /** Record header CRC (bytes 0..20) mismatch: the declared length cannot be trusted. */
    RECORD_HEADER_CHECKSUM,
    /** A record declares a payload longer than the configured maximum. */
    RECORD_TOO_LARGE,
    /** Record checksum (header bytes 0..24 followed by the payload) mismatch. */
    RECORD_CHECKSUM,
    /** A record's offset (or a segment's base offset) does not continue the previous one. */
    OFFSET_OUT_OF_ORDER
}
