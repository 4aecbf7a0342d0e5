package dev.felix.cluster.replication;

import dev.felix.storage.LogRecord;
import dev.felix.storage.ReadResult;
import dev.felix.storage.SegmentedLog;
import dev.felix.storage.StorageException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads of this node's copy of a unit another node leads ("follower reads"), bounded by the high watermark the
 * leader last told this copy: a record below it is held by the replica set as the stream's consistency requires,
 * so no later truncation removes it, and serving it here is as safe as serving it on the leader.
 *
 * <p>The copy can close under a read (this node is about to lead the unit, or no longer holds it): the read then
 * answers {@link ReadResult.Records} with no records, and the caller reads elsewhere.
 *
 * <p><b>Threads.</b> Any thread; reads share the log with the copy's own appends.
 */
public final class FollowerRead {

    private final FollowerReplica replica;

    FollowerRead(FollowerReplica replica) {
        this.replica = replica;
    }

    /** The offset below which reads are served: the leader's high watermark as this copy last heard it. */
    public long highWatermark() {
        return replica.highWatermark();
    }

    /** The oldest offset this copy holds, or -1 if it has no log. */
    public long baseOffset() {
        SegmentedLog log = replica.log();
        try {
            return log == null ? -1 : log.baseOffset();
        } catch (StorageException e) {
            return -1;
        }
    }

    /**
     * Reads records from {@code from} on, none at or past the high watermark. Empty records when the copy has no
     * log or closed meanwhile (read elsewhere); {@link ReadResult.Trimmed} or {@link ReadResult.Corrupted} as
     * the log answers them.
     */
    public ReadResult read(long from, int maxRecords, long maxBytes) {
        long hwm = highWatermark();
        SegmentedLog log = replica.log();
        if (log == null || from >= hwm) {
            return new ReadResult.Records(List.of(), from, 0);
        }
        ReadResult r;
        try {
            r = log.read(from, (int) Math.min(maxRecords, hwm - from), maxBytes);
        } catch (StorageException e) {
            return new ReadResult.Records(List.of(), from, 0);
        }
        if (!(r instanceof ReadResult.Records records) || records.nextOffset() <= hwm) {
            return r;
        }
        List<LogRecord> kept = new ArrayList<>();
        long bytes = 0;
        for (LogRecord rec : records.records()) {
            if (rec.offset() < hwm) {
                kept.add(rec);
                bytes += rec.payload().length;
            }
        }
        return new ReadResult.Records(kept, from + kept.size(), bytes);
    }
}
