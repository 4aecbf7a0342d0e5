package dev.felix.storage;

/**
 * <b>Constants only; thread-safe.</b>
 *
 * <p>Layout of the reset marker {@value #FILE_NAME}, format v1 (big-endian): the commit point of
 * {@link SegmentedLog#resetTo(long)}. Its presence means "this log is being reset to start empty at
 * {@code target_offset} in segment {@code new_segment_id}"; recovery finishes the reset whenever it finds one.
 *
 * <pre>
 *  +---------------------------------+----------------+----------------+
 *  | magic 0x464C5352 "FLSR" (4)     | version 1 (2)  | flags 0 (2)    |  0
 *  +---------------------------------+----------------+----------------+
 *  | target_offset (8)   the offset the log starts at after the reset  |  8
 *  +-------------------------------------------------------------------+
 *  | new_segment_id (8)  id of the (empty) segment that starts there;  | 16
 *  |                     every segment with a smaller id is deleted    |
 *  +---------------------------------+---------------------------------+
 *  | crc = CRC32(bytes 0..24) (4)    | reserved 0 (4)                  | 24
 *  +---------------------------------+---------------------------------+
 * </pre>
 *
 * <p><b>Protocol</b> (as Kafka's log loader treats {@code .swap}/{@code .deleted} files: write new, rename,
 * delete old; recovery finishes or undoes):
 * <ol>
 *   <li>write the marker to {@value #TMP_NAME}, force it, rename it to {@value #FILE_NAME}, force the
 *       directory &mdash; <b>the commit point</b>; a crash before it leaves the old log (recovery deletes a
 *       stray {@value #TMP_NAME});</li>
 *   <li>create segment {@code new_segment_id} with base offset {@code target_offset}, force it and the
 *       directory;</li>
 *   <li>delete every segment (and index) with a smaller id, force the directory;</li>
 *   <li>rewrite the epoch history empty;</li>
 *   <li>delete the marker, force the directory.</li>
 * </ol>
 * Steps 2&ndash;5 are idempotent: recovery finding a valid marker repeats them (creating the new segment only
 * if it is missing or shorter than a header) before anything else. A marker that fails its checks refuses the
 * log with {@link StorageErrorCode#CORRUPTION} (it was written whole and renamed, so damage is not a crash).
 */
final class ResetMarkerDescriptor {
    /** The file name inside a log directory. */
    static final String FILE_NAME = "reset.pending";
    /** Name of a marker being written (before the commit point). */
    static final String TMP_NAME = "reset.pending.tmp";

    /** "FLSR". */
    static final int MAGIC = 0x464C5352;
    /** The only version this code reads or writes. */
    static final short VERSION = 1;
    /** Total length. */
    static final int LENGTH = 32;
    /** Offset of the 4-byte magic. */
    static final int MAGIC_OFFSET = 0;
    /** Offset of the 2-byte version. */
    static final int VERSION_OFFSET = 4;
    /** Offset of the 2-byte flags (0). */
    static final int FLAGS_OFFSET = 6;
    /** Offset of the 8-byte target offset. */
    static final int TARGET_OFFSET_OFFSET = 8;
    /** Offset of the 8-byte new segment id. */
    static final int NEW_SEGMENT_ID_OFFSET = 16;
    /** Offset of the 4-byte CRC. */
    static final int CRC_OFFSET = 24;
    /** Bytes the CRC covers. */
    static final int CRC_COVERED = 24;
    /** Offset of the 4 reserved bytes. */
    static final int RESERVED_OFFSET = 28;

    private ResetMarkerDescriptor() {
    }
}
