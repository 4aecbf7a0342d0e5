package dev.felix.storage;

/**
 * <b>Constants only; thread-safe.</b>
 *
 * <p>Layout of a log's epoch history file {@value #FILE_NAME}, format v1 (big-endian): which leader epoch wrote
 * which offsets. Entry {@code (E, S)} says "epoch E wrote the offsets from S on, up to the start of the next
 * entry (or the tail)". The file lives beside the segments and is absent until the first epoch is recorded.
 *
 * <pre>
 *  header (16 bytes)
 *  +---------------------------------+----------------+----------------+
 *  | magic 0x464C5345 "FLSE" (4)     | version 1 (2)  | flags 0 (2)    |  0
 *  +---------------------------------+----------------+----------------+
 *  | reserved 0 (4)                  | header_crc = CRC32(bytes 0..12) |  8
 *  +---------------------------------+---------------------------------+
 *  entry i (24 bytes) at 16 + 24 * i
 *  +-------------------------------------------------------------------+
 *  | epoch (8)         &ge; 0, strictly ascending from entry to entry      |  0
 *  +-------------------------------------------------------------------+
 *  | start_offset (8)  &ge; 0, non-decreasing (equal: the earlier epoch    |  8
 *  |                   wrote nothing)                                  |
 *  +---------------------------------+---------------------------------+
 *  | flags 0 (4)                     | crc = CRC32(entry bytes 0..20)  | 16
 *  +---------------------------------+---------------------------------+
 * </pre>
 *
 * <p><b>Writes.</b> A new epoch is appended in place (one positioned write at the end of the last valid entry,
 * then fdatasync); every other change (truncate, reset, retention trim, repair) rewrites the whole file as
 * {@value #TMP_NAME}, forces it, renames it over the file and forces the directory, so a crash leaves the old or
 * the new file, never a mix.
 *
 * <p><b>Load</b> (at open): a {@value #TMP_NAME} is deleted (an interrupted rewrite); header length, magic,
 * version, flags and CRC are checked; entries are checked in order (CRC, flags, epoch ascending, start
 * non-decreasing). The <em>last</em> entry may be torn by a crash during an append: trailing bytes shorter than
 * an entry, or a last entry failing its CRC with nothing after it, are cut off (WARN). Any other failure refuses
 * the log with {@link StorageErrorCode#CORRUPTION} naming the file and the byte position. Entries that start
 * past the recovered tail (records lost with an unforced tail) are moved to the tail.
 */
final class EpochHistoryDescriptor {
    /** The file name inside a log directory. */
    static final String FILE_NAME = "epochs.history";
    /** Name of a rewrite in progress. */
    static final String TMP_NAME = "epochs.history.tmp";

    /** "FLSE". */
    static final int MAGIC = 0x464C5345;
    /** The only version this code reads or writes. */
    static final short VERSION = 1;
    /** Header length; entry 0 starts here. */
    static final int HEADER_LENGTH = 16;
    /** Offset of the 4-byte magic. */
    static final int MAGIC_OFFSET = 0;
    /** Offset of the 2-byte version. */
    static final int VERSION_OFFSET = 4;
    /** Offset of the 2-byte flags (must be 0). */
    static final int FLAGS_OFFSET = 6;
    /** Offset of the 4 reserved bytes (must be 0). */
    static final int RESERVED_OFFSET = 8;
    /** Offset of the 4-byte header CRC. */
    static final int HEADER_CRC_OFFSET = 12;
    /** Bytes the header CRC covers. */
    static final int HEADER_CRC_COVERED = 12;

    /** Length of one entry. */
    static final int ENTRY_LENGTH = 24;
    /** Within an entry: the 8-byte epoch. */
    static final int ENTRY_EPOCH_OFFSET = 0;
    /** Within an entry: the 8-byte start offset. */
    static final int ENTRY_START_OFFSET = 8;
    /** Within an entry: the 4-byte flags (must be 0). */
    static final int ENTRY_FLAGS_OFFSET = 16;
    /** Within an entry: the 4-byte CRC. */
    static final int ENTRY_CRC_OFFSET = 20;
    /** Bytes of an entry its CRC covers. */
    static final int ENTRY_CRC_COVERED = 20;

    /** Files larger than this are refused at load (about 700,000 epochs) instead of being read into memory. */
    static final long MAX_FILE_BYTES = 16L * 1024 * 1024;

    private EpochHistoryDescriptor() {
    }

    /** File position of entry {@code i}. */
    static long entryPosition(final int i) {
        return HEADER_LENGTH + (long) ENTRY_LENGTH * i;
    }
}
