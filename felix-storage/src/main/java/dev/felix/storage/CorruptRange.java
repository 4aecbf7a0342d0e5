package dev.felix.storage;

import java.nio.file.Path;

/**
 * <b>Immutable; thread-safe.</b>
 *
 * <p>Damage found inside one segment: the bytes at {@code faultPosition} are not a valid record, so offsets
 * {@code from..to} (inclusive) cannot be served. Reads resume at {@code resumePosition} (the next valid record,
 * offset {@code to + 1}), or in the next segment when {@code resumePosition < 0} (the damage runs to the end of
 * the segment). {@code to < from} means the damage covered no offset (garbage between two valid records).
 *
 * @param segmentId      the segment's id
 * @param file           its {@code .log} file
 * @param faultPosition  byte position of the first bad byte run
 * @param from           first offset that cannot be served
 * @param to             last offset that cannot be served
 * @param resumePosition byte position of record {@code to + 1}, or -1
 * @param kind           the check that failed first
 * @param detail         what the check saw
 */
record CorruptRange(long segmentId, Path file, long faultPosition, long from, long to, long resumePosition,
                    CorruptionKind kind, String detail) {

    /** Offsets the damage covers. */
    long count() {
        return Math.max(0, to - from + 1);
    }

    boolean runsToSegmentEnd() {
        return resumePosition < 0;
    }

    /** The value a read returns for it, starting at {@code requested}. */
    ReadResult.Corrupted toResult(final long requested) {
        return new ReadResult.Corrupted(requested, to, file, faultPosition, kind, detail);
    }

    /** One line for logs. */
    String describe() {
        return "corrupt records in " + file + " at byte position " + faultPosition + " (" + kind
            + (detail == null || detail.isEmpty() ? "" : ": " + detail) + "): "
            + (count() == 0 ? "no offset lost" : "offsets " + from + ".." + to + " cannot be served")
            + "; reads continue at offset " + (to + 1);
    }
}
