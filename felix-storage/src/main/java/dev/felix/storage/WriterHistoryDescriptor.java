package dev.felix.storage;

/**
 * <b>Constants only; thread-safe.</b>
 *
 * <p>Layout of a log's writer history file {@value #FILE_NAME}, format v1 (big-endian): one entry per event of a
 * <em>writer session</em> (one {@link SegmentedLog} instance that wrote to the directory). It exists to prove or
 * rule out that two writers worked on one log at the same time, which the data files alone cannot show (two
 * writers appending equal-sized records overwrite each other byte for byte and leave a log that verifies).
 *
 * <pre>
 *  header (16 bytes)
 *  +---------------------------------+----------------+----------------+
 *  | magic 0x464C5357 "FLSW" (4)     | version 1 (2)  | flags 0 (2)    |  0
 *  +---------------------------------+----------------+----------------+
 *  | reserved 0 (4)                  | header_crc = CRC32(bytes 0..12) |  8
 *  +---------------------------------+---------------------------------+
 *  entry (56 bytes) at 16 + 56 * i
 *  +----------------+----------------+---------------------------------+
 *  | kind (2)       | flags 0 (2)    | reserved 0 (4)                  |  0
 *  +----------------+----------------+---------------------------------+
 *  | session (8)       random non-zero id of the writing instance      |  8
 *  | pid (8)           process id of the writer                        | 16
 *  | offset (8)        START: tail at the first write; END: tail at a  | 24
 *  |                   clean close; FENCED: tail when it stopped       |
 *  | time_micros (8)   wall clock when the entry was written           | 32
 *  | other_session (8) FENCED: the session it found; else 0            | 40
 *  +---------------------------------+---------------------------------+
 *  | reserved 0 (4)                  | crc = CRC32(entry bytes 0..52)  | 48
 *  +---------------------------------+---------------------------------+
 * </pre>
 *
 * <p><b>Kinds.</b> {@link #START} is written when a session first writes (append, truncate, reset, epoch),
 * before anything else it writes; {@link #END} after a clean {@link SegmentedLog#close()} whose final flush
 * succeeded; {@link #FENCED} when a session finds another session's entry after its own START (it then stops
 * writing, see {@link StorageErrorCode#CONCURRENT_WRITER}).
 *
 * <p><b>Writes</b> use {@code O_APPEND}, so entries of concurrent writers (even in different processes) land
 * whole and one after another, never over each other; the file order is the order of the writes. Entries are
 * not forced (the history is exact across process crashes and best effort across power loss). The file is
 * created whole (header written to {@value #TMP_NAME}{@code -<pid>-<n>}, a name of the creating session's own, then
 * linked into place; a leftover of a crash is harmless and ignored), trailing bytes shorter than an entry
 * (a crash mid-append) are cut by the next writer, and a file over {@link #COMPACT_ABOVE_BYTES} is rewritten
 * with its last {@link #COMPACT_KEEP_ENTRIES} entries by the next session that starts.
 *
 * <p><b>Verify rules</b> ({@link LogTools#verify}): a session with an entry after another session's START that
 * came after its own START was writing while the other one was (overlap); a FENCED entry is the same proof; a
 * session that starts at an offset other than the tail the previous session closed cleanly at found the log
 * changed between sessions.
 */
final class WriterHistoryDescriptor {
    /** The file name inside a log directory. */
    static final String FILE_NAME = "writers.history";
    /** Prefix of a file being created or compacted ({@code -<pid>-<n>} follows); the bare name is from older versions. */
    static final String TMP_NAME = "writers.history.tmp";

    /** "FLSW". */
    static final int MAGIC = 0x464C5357;
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
    /** Offset of the 4 reserved bytes. */
    static final int RESERVED_OFFSET = 8;
    /** Offset of the 4-byte header CRC. */
    static final int HEADER_CRC_OFFSET = 12;
    /** Bytes the header CRC covers. */
    static final int HEADER_CRC_COVERED = 12;

    /** Length of one entry. */
    static final int ENTRY_LENGTH = 56;
    /** Within an entry: the 2-byte kind. */
    static final int ENTRY_KIND_OFFSET = 0;
    /** Within an entry: the 2-byte flags (0). */
    static final int ENTRY_FLAGS_OFFSET = 2;
    /** Within an entry: the 8-byte session id. */
    static final int ENTRY_SESSION_OFFSET = 8;
    /** Within an entry: the 8-byte process id. */
    static final int ENTRY_PID_OFFSET = 16;
    /** Within an entry: the 8-byte log offset. */
    static final int ENTRY_OFFSET_OFFSET = 24;
    /** Within an entry: the 8-byte wall-clock time in microseconds. */
    static final int ENTRY_TIME_OFFSET = 32;
    /** Within an entry: the 8-byte other session id (FENCED). */
    static final int ENTRY_OTHER_SESSION_OFFSET = 40;
    /** Within an entry: the 4-byte CRC. */
    static final int ENTRY_CRC_OFFSET = 52;
    /** Bytes of an entry its CRC covers. */
    static final int ENTRY_CRC_COVERED = 52;

    /** Entry kind: a session's first write. */
    static final short START = 1;
    /** Entry kind: a session closed cleanly. */
    static final short END = 2;
    /** Entry kind: a session found another writer and stopped. */
    static final short FENCED = 3;

    /** A session starting on a file larger than this compacts it first (about 18,700 entries). */
    static final long COMPACT_ABOVE_BYTES = 1024 * 1024;
    /** Entries a compaction keeps (the newest). */
    static final int COMPACT_KEEP_ENTRIES = 4096;

    private WriterHistoryDescriptor() {
    }

    /** File position of entry {@code i}. */
    static long entryPosition(final long i) {
        return HEADER_LENGTH + ENTRY_LENGTH * i;
    }
}
