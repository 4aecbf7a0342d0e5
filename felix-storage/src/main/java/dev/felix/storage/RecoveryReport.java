package dev.felix.storage;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * <b>Immutable; thread-safe.</b>
 *
 * <p>What {@link SegmentedLog#open} found and did.
 *
 * @param directory            the log directory
 * @param created              the directory held no segment and a new log was started
 * @param segments             segments after recovery
 * @param baseOffset           oldest retained offset
 * @param tailOffset           next offset to assign
 * @param bytesScanned         segment bytes read and verified
 * @param tailRepair           the torn tail of the newest segment that was cut off (damage after which no valid
 *                             record follows)
 * @param indexesRebuilt       index files rewritten because they were missing, invalid or stale
 * @param abandonedSegmentsRemoved newest segments left behind by an interrupted roll, deleted
 * @param elapsed              time spent
 * @param damage               damaged ranges found in sealed segments (served around: reads of them return
 *                             {@link ReadResult.Corrupted}); each was logged at ERROR
 * @param resetCompleted       a {@link SegmentedLog#resetTo} interrupted after its commit point was finished
 */
public record RecoveryReport(Path directory, boolean created, int segments, long baseOffset, long tailOffset,
                             long bytesScanned, Optional<TailRepair> tailRepair, int indexesRebuilt,
                             int abandonedSegmentsRemoved, Duration elapsed, List<ReadResult.Corrupted> damage,
                             boolean resetCompleted) {

    public RecoveryReport {
        damage = List.copyOf(damage);
    }

    /** Bytes cut off the tail (0 when nothing was repaired). */
    public long truncatedBytes() {
        return tailRepair.map(TailRepair::bytesCut).orElse(0L);
    }

    /**
     * A tail cut off at open.
     *
     * @param file     the segment file
     * @param position byte position the file was truncated to (start of the first bad record)
     * @param bytesCut bytes removed
     * @param reason   why the bytes at {@code position} were not a valid record
     */
    public record TailRepair(Path file, long position, long bytesCut, CorruptionKind reason) {
    }
}
