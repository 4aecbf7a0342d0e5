package dev.felix.storage;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * <b>Thread-safe; one instance per {@link StorageRuntime}, shared by all its logs.</b>
 *
 * <p>Storage counters, <b>one instance per {@link StorageRuntime}</b>: every log opened with a runtime adds to
 * the same counters, so a node exports one set of storage meters whatever the number of logs (per-log
 * meters would multiply series by the number of shards; per-log state is available from the log itself:
 * {@link SegmentedLog#tailOffset()}, {@link SegmentedLog#durableOffset()}, {@link SegmentedLog#sizeBytes()}).
 * The server binds these to Micrometer; {@link #snapshot()} names each counter as upstream's Prometheus
 * metric does.
 *
 * <p><b>Concurrency:</b> thread-safe; counters are {@link LongAdder}s (maxima {@link LongAccumulator}s), so
 * recording never contends on a shared cache line. Reads are sums at the moment of the call.
 */
public final class LogMetrics {
    private final LongAdder appendBatches = new LongAdder();
    private final LongAdder appendedRecords = new LongAdder();
    private final LongAdder appendedBytes = new LongAdder();
    private final LongAdder appendFailures = new LongAdder();
    private final LongAdder syncs = new LongAdder();
    private final LongAdder syncNanosTotal = new LongAdder();
    private final LongAccumulator syncNanosMax = new LongAccumulator(Math::max, 0);
    private final LongAdder syncFailures = new LongAdder();
    private final LongAdder groupCommitSyncs = new LongAdder();
    private final LongAdder groupCommitRequests = new LongAdder();
    private final LongAccumulator groupCommitMaxFanIn = new LongAccumulator(Math::max, 0);
    private final LongAdder segmentsRolled = new LongAdder();
    private final LongAdder recoveries = new LongAdder();
    private final LongAdder recoveryTruncatedBytes = new LongAdder();
    private final LongAdder recoveryAbandonedSegments = new LongAdder();
    private final LongAdder indexRebuilds = new LongAdder();
    private final LongAdder indexWriteFailures = new LongAdder();
    private final LongAdder indexMismatches = new LongAdder();
    private final LongAdder retentionSegmentsDeleted = new LongAdder();
    private final LongAdder retentionBytesReclaimed = new LongAdder();
    private final LongAdder retentionFailures = new LongAdder();
    private final LongAdder reads = new LongAdder();
    private final LongAdder readRecords = new LongAdder();
    private final LongAdder readBytes = new LongAdder();
    private final LongAdder corruptRanges = new LongAdder();
    private final LongAdder corruptOffsets = new LongAdder();

    LogMetrics() {
    }

    void append(final int records, final long bytes) {
        appendBatches.increment();
        appendedRecords.add(records);
        appendedBytes.add(bytes);
    }

    void appendFailure() {
        appendFailures.increment();
    }

    void sync(final long nanos) {
        syncs.increment();
        syncNanosTotal.add(nanos);
        syncNanosMax.accumulate(nanos);
    }

    void syncFailure() {
        syncFailures.increment();
    }

    void groupCommit(final int requestsCompleted) {
        if (requestsCompleted > 0) {
            groupCommitSyncs.increment();
            groupCommitRequests.add(requestsCompleted);
            groupCommitMaxFanIn.accumulate(requestsCompleted);
        }
    }

    /** Requests found already covered right after registering (a pass finished in between): served, no new pass. */
    void groupCommitLate(final int requestsCompleted) {
        groupCommitRequests.add(requestsCompleted);
    }

    void segmentRolled() {
        segmentsRolled.increment();
    }

    void recovery(final long truncatedBytes, final int abandonedSegments, final int indexesRebuilt) {
        recoveries.increment();
        recoveryTruncatedBytes.add(truncatedBytes);
        recoveryAbandonedSegments.add(abandonedSegments);
        indexRebuilds.add(indexesRebuilt);
    }

    void indexWriteFailure() {
        indexWriteFailures.increment();
    }

    void indexMismatch() {
        indexMismatches.increment();
    }

    void retention(final int segments, final long bytes) {
        retentionSegmentsDeleted.add(segments);
        retentionBytesReclaimed.add(bytes);
    }

    void retentionFailure() {
        retentionFailures.increment();
    }

    void read(final int records, final long bytes) {
        reads.increment();
        readRecords.add(records);
        readBytes.add(bytes);
    }

    void corruptRange(final long offsets) {
        corruptRanges.increment();
        corruptOffsets.add(offsets);
    }

    /** Append calls that succeeded. */
    public long appendBatches() {
        return appendBatches.sum();
    }

    /** Records appended. */
    public long appendedRecords() {
        return appendedRecords.sum();
    }

    /** Bytes appended (record headers included). */
    public long appendedBytes() {
        return appendedBytes.sum();
    }

    /** Appends that failed (I/O, closed, too large, ...). */
    public long appendFailures() {
        return appendFailures.sum();
    }

    /** Flush passes that forced at least one file. */
    public long syncs() {
        return syncs.sum();
    }

    /** Total time spent in those passes, nanoseconds. */
    public long syncNanosTotal() {
        return syncNanosTotal.sum();
    }

    /** Longest flush pass, nanoseconds. */
    public long syncNanosMax() {
        return syncNanosMax.get();
    }

    /** Flush passes that failed. */
    public long syncFailures() {
        return syncFailures.sum();
    }

    /** Flush passes that completed at least one {@link SegmentedLog#flush(long)} request. */
    public long groupCommitSyncs() {
        return groupCommitSyncs.sum();
    }

    /**
     * Flush requests that completed normally (including those a pass had already covered when they were made);
     * divided by {@link #groupCommitSyncs()} it is the mean group-commit fan-in.
     */
    public long groupCommitRequests() {
        return groupCommitRequests.sum();
    }

    /** Largest number of flush requests one pass completed. */
    public long groupCommitMaxFanIn() {
        return groupCommitMaxFanIn.get();
    }

    /** Segments sealed and replaced by a new active segment. */
    public long segmentsRolled() {
        return segmentsRolled.sum();
    }

    /** Logs opened (each open runs recovery). */
    public long recoveries() {
        return recoveries.sum();
    }

    /** Bytes cut off torn tails at open. */
    public long recoveryTruncatedBytes() {
        return recoveryTruncatedBytes.sum();
    }

    /** Segments of interrupted rolls removed at open. */
    public long recoveryAbandonedSegments() {
        return recoveryAbandonedSegments.sum();
    }

    /** Index files rebuilt at open. */
    public long indexRebuilds() {
        return indexRebuilds.sum();
    }

    /** Index writes that failed while appending (the append itself succeeded). */
    public long indexWriteFailures() {
        return indexWriteFailures.sum();
    }

    /** Reads that found an index entry not matching its segment and fell back to a scan. */
    public long indexMismatches() {
        return indexMismatches.sum();
    }

    /** Sealed segments deleted by retention. */
    public long retentionSegmentsDeleted() {
        return retentionSegmentsDeleted.sum();
    }

    /** Bytes reclaimed by retention. */
    public long retentionBytesReclaimed() {
        return retentionBytesReclaimed.sum();
    }

    /** Retention passes that failed. */
    public long retentionFailures() {
        return retentionFailures.sum();
    }

    /** Read calls that returned records. */
    public long reads() {
        return reads.sum();
    }

    /** Records returned by reads. */
    public long readRecords() {
        return readRecords.sum();
    }

    /** Payload bytes returned by reads. */
    public long readBytes() {
        return readBytes.sum();
    }

    /**
     * Damaged ranges found in logs (at open or by reads), each counted once per open log however often it is
     * read; see {@link ReadResult.Corrupted}.
     */
    public long corruptRanges() {
        return corruptRanges.sum();
    }

    /** Offsets inside those ranges (records that cannot be served). */
    public long corruptOffsets() {
        return corruptOffsets.sum();
    }

    /** All counters under upstream's Prometheus names (insertion-ordered). */
    public Map<String, Long> snapshot() {
        final Map<String, Long> m = new LinkedHashMap<>();
        m.put("felix_storage_append_batches_total", appendBatches());
        m.put("felix_storage_append_records_total", appendedRecords());
        m.put("felix_storage_append_bytes_total", appendedBytes());
        m.put("felix_storage_append_failures_total", appendFailures());
        m.put("felix_storage_sync_total", syncs());
        m.put("felix_storage_sync_duration_nanos_total", syncNanosTotal());
        m.put("felix_storage_sync_duration_nanos_max", syncNanosMax());
        m.put("felix_storage_sync_failures_total", syncFailures());
        m.put("felix_storage_group_commit_syncs_total", groupCommitSyncs());
        m.put("felix_storage_group_commit_requests_total", groupCommitRequests());
        m.put("felix_storage_group_commit_max_fan_in", groupCommitMaxFanIn());
        m.put("felix_storage_segment_roll_total", segmentsRolled());
        m.put("felix_storage_recovery_total", recoveries());
        m.put("felix_storage_recovery_truncated_bytes", recoveryTruncatedBytes());
        m.put("felix_storage_recovery_abandoned_rolls_total", recoveryAbandonedSegments());
        m.put("felix_storage_recovery_index_rebuilds_total", indexRebuilds());
        m.put("felix_storage_index_write_failures_total", indexWriteFailures());
        m.put("felix_storage_index_mismatches_total", indexMismatches());
        m.put("felix_storage_retention_segments_deleted_total", retentionSegmentsDeleted());
        m.put("felix_storage_retention_bytes_reclaimed_total", retentionBytesReclaimed());
        m.put("felix_storage_retention_failures_total", retentionFailures());
        m.put("felix_storage_read_total", reads());
        m.put("felix_storage_read_records_total", readRecords());
        m.put("felix_storage_read_bytes_total", readBytes());
        m.put("felix_storage_corrupt_ranges_total", corruptRanges());
        m.put("felix_storage_corrupt_offsets_total", corruptOffsets());
        return m;
    }
}
