package dev.felix.storage;

/**
 * <b>Immutable; thread-safe.</b>
 *
 * <p>One entry of a log's epoch history ({@link SegmentedLog#epochHistory()}): leader epoch {@code epoch} wrote
 * the offsets from {@code startOffset} up to the next entry's start (or the tail, for the last entry).
 *
 * @param epoch       the leader epoch, &ge; 0
 * @param startOffset the first offset it wrote (or would have written: equal to the next entry's start when it
 *                    wrote nothing)
 */
public record EpochEntry(long epoch, long startOffset) {
}
