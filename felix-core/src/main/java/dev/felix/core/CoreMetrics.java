package dev.felix.core;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of the broker core. Plain {@link LongAdder}s so the core stays free of a metrics library;
 * the server binds them to Prometheus names (see docs/operations.md).
 *
 * <p>Thread-safe; increments are cheap and contention-free.
 */
public final class CoreMetrics {

    /** Events accepted into shards. */
    public final LongAdder publishedEvents = new LongAdder();
    /** Payload bytes accepted into shards. */
    public final LongAdder publishedBytes = new LongAdder();
    /** Batches the shard writers formed (one per fanout). */
    public final LongAdder batches = new LongAdder();
    /** Events placed on subscriber queues (one per subscriber per event). */
    public final LongAdder fannedOutEvents = new LongAdder();
    /** Gap notices queued for subscribers. */
    public final LongAdder gapNotices = new LongAdder();
    /** Events subscribers missed because retention (or the memory ring) dropped them first. */
    public final LongAdder retentionMissedEvents = new LongAdder();
    /** Events subscribers missed because they are damaged on disk (each range reported as a gap). */
    public final LongAdder corruptMissedEvents = new LongAdder();
    /** Times a {@code block} subscriber stopped its shard's writer. */
    public final LongAdder writerBlocked = new LongAdder();
    /** Times a {@code catch_up} subscriber was detached from live delivery to read history. */
    public final LongAdder catchUpDetached = new LongAdder();
    /** Events delivered from history (ring or log) rather than live. */
    public final LongAdder replayedEvents = new LongAdder();

    private final Map<Checkpoint, LongAdder> dropped = new EnumMap<>(Checkpoint.class);
    private final Map<Checkpoint, LongAdder> blocked = new EnumMap<>(Checkpoint.class);

    public CoreMetrics() {
        for (Checkpoint c : Checkpoint.values()) {
            dropped.put(c, new LongAdder());
            blocked.put(c, new LongAdder());
        }
    }

    /** Events dropped at a checkpoint (each is reported to its subscriber as a gap). */
    public LongAdder dropped(Checkpoint checkpoint) {
        return dropped.get(checkpoint);
    }

    /** Times a checkpoint was full and made its producer wait. */
    public LongAdder blocked(Checkpoint checkpoint) {
        return blocked.get(checkpoint);
    }
}
