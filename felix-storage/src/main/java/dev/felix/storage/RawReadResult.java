package dev.felix.storage;

import java.util.Arrays;

/**
 * <b>Immutable by convention; thread-safe; the caller owns the byte array.</b>
 *
 * <p>Outcome of {@link SegmentedLog#readRaw}: the stored bytes of whole records ({@link Chunk}), or the same
 * {@link ReadResult.Trimmed} and {@link ReadResult.Corrupted} values {@link SegmentedLog#read} returns, with
 * the same meaning. Every variant has {@link #nextOffset()}.
 */
public sealed interface RawReadResult permits RawReadResult.Chunk, ReadResult.Trimmed, ReadResult.Corrupted {

    /**
     * Records {@code firstOffset .. nextOffset - 1} exactly as stored: back-to-back record headers and payloads
     * in the layout of {@link RecordDescriptor} (28-byte header, payload), every CRC intact, ready for
     * {@link SegmentedLog#appendRaw} on another log. Every record's checksums were verified while reading.
     *
     * @param firstOffset offset of the first record (the offset asked for)
     * @param nextOffset  offset after the last record; equal to {@code firstOffset} when there are none
     * @param records     number of records
     * @param bytes       the records' bytes; empty when there are none
     */
    record Chunk(long firstOffset, long nextOffset, int records, byte[] bytes) implements RawReadResult {
        @Override
        public boolean equals(final Object o) {
            return o instanceof Chunk && ((Chunk) o).firstOffset == firstOffset && ((Chunk) o).nextOffset == nextOffset
                && ((Chunk) o).records == records && Arrays.equals(((Chunk) o).bytes, bytes);
        }

        @Override
        public int hashCode() {
            return 31 * Long.hashCode(firstOffset) + Arrays.hashCode(bytes);
        }

        @Override
        public String toString() {
            return "Chunk{" + firstOffset + ".." + nextOffset + ", " + records + " records, " + bytes.length + " bytes}";
        }
    }

    /** The offset the next read should start at. */
    long nextOffset();
}
