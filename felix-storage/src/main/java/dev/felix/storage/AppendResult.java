package dev.felix.storage;

/**
 * <b>Immutable; thread-safe.</b>
 *
 * <p>The offsets one {@link SegmentedLog#append} assigned: contiguous, {@code firstOffset..lastOffset}
 * inclusive.
 *
 * @param firstOffset offset of the batch's first record
 * @param lastOffset  offset of the batch's last record
 */
public record AppendResult(long firstOffset, long lastOffset) {

    /** Number of records in the batch. */
    public int count() {
        return (int) (lastOffset - firstOffset + 1);
    }

    /** {@code lastOffset + 1}: the exclusive bound to pass to {@link SegmentedLog#flush(long)}. */
    public long nextOffset() {
        return lastOffset + 1;
    }
}
