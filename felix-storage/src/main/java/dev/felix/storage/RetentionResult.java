package dev.felix.storage;

/**
 * <b>Immutable; thread-safe.</b>
 *
 * <p>Outcome of one {@link SegmentedLog#enforceRetention()} pass.
 *
 * @param segmentsDeleted sealed head segments removed
 * @param bytesReclaimed  bytes of those segments
 * @param baseOffset      oldest retained offset afterwards
 */
public record RetentionResult(int segmentsDeleted, long bytesReclaimed, long baseOffset) {
}
