package dev.felix.storage;

/**
 * <b>Constants only; thread-safe.</b>
 *
 * <p>Layout of the sparse index file {@code <segment id>.index}, format v2 (big-endian). The index is derived
 * data: it has no checksum, is never trusted (validated on load, rebuilt on any doubt) and can always be
 * rebuilt from its segment. Entries are written with plain writes while appending and forced when the
 * segment is sealed.
 *
 * <pre>
 *  header (24 bytes)
 *  +---------------------------------+----------------+----------------+
 *  | magic 0x464C5349 "FLSI" (4)     | version 2 (2)  | flags 0 (2)    |  0
 *  +---------------------------------+----------------+----------------+
 *  | base_offset (8) == the segment's base offset                      |  8
 *  +-------------------------------------------------------------------+
 *  | reserved (8)                                                      | 16
 *  +-------------------------------------------------------------------+
 *  entry i (16 bytes) at 24 + 16 * i, strictly ascending in both fields
 *  +-------------------------------------------------------------------+
 *  | offset (8)       record offset                                    |
 *  | position (8)     byte position of that record in the .log file    |
 *  +-------------------------------------------------------------------+
 * </pre>
 *
 * Emission rule, identical when appending and when rebuilding (so a rebuilt index is byte-identical):
 * emit {@code (offset, position)} for a record when the index is empty or when at least
 * {@code indexSpacingBytes} of records were written since the last entry, i.e.
 * {@code position - lastEntryPosition >= indexSpacingBytes}.
 *
 * On load only magic, version and base offset of the header are checked (flags and reserved are ignored);
 * a torn final entry is ignored.
 */
final class IndexDescriptor {
    /** "FLSI". */
    static final int MAGIC = 0x464C5349;
    /** The only version this code reads or writes. */
    static final short VERSION = 2;
    /** Header length; entry 0 starts here. */
    static final int HEADER_LENGTH = 24;
    /** Length of one entry. */
    static final int ENTRY_LENGTH = 16;

    /** Offset of the 4-byte magic. */
    static final int MAGIC_OFFSET = 0;
    /** Offset of the 2-byte version. */
    static final int VERSION_OFFSET = 4;
    /** Offset of the 2-byte flags (ignored on load). */
    static final int FLAGS_OFFSET = 6;
    /** Offset of the 8-byte base offset. */
    static final int BASE_OFFSET_OFFSET = 8;
    /** Offset of the 8 reserved bytes. */
    static final int RESERVED_OFFSET = 16;

    /** Within an entry: offset of the 8-byte record offset. */
    static final int ENTRY_OFFSET_OFFSET = 0;
    /** Within an entry: offset of the 8-byte file position. */
    static final int ENTRY_POSITION_OFFSET = 8;

    private IndexDescriptor() {
    }

    /** File position of entry {@code i}. */
    static long entryPosition(final int i) {
        return HEADER_LENGTH + (long) ENTRY_LENGTH * i;
    }
}
