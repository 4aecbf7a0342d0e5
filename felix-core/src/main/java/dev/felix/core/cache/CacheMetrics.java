package dev.felix.core.cache;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of one cache. Plain {@link LongAdder}s so the core stays free of a metrics library; the server
 * binds them to Prometheus names. Thread-safe; increments are cheap and contention-free.
 */
public final class CacheMetrics {
    /** Puts applied (each got an offset). */
    public final LongAdder puts = new LongAdder();
    /** Deletes that removed a live key (no-op deletes are not counted). */
    public final LongAdder deletes = new LongAdder();
    /** Entries removed because their TTL ran out (lazily on read, by the sweep, or on delete/capacity). */
    public final LongAdder expirations = new LongAdder();
    /** Entries evicted to stay within {@code max_entries}. */
    public final LongAdder evictions = new LongAdder();
    /** Reads that found a live entry. */
    public final LongAdder hits = new LongAdder();
    /** Reads that found nothing (absent or expired). */
    public final LongAdder misses = new LongAdder();
    /** Mutations refused because the writer queue was full ({@code overloaded}). */
    public final LongAdder rejected = new LongAdder();
    /** Changes placed on watcher queues (one per watcher per change). */
    public final LongAdder watchDelivered = new LongAdder();
    /** Watches the cache ended because their queue overflowed. */
    public final LongAdder watchOverflows = new LongAdder();
    /** Log caches: snapshots written. */
    public final LongAdder snapshots = new LongAdder();
    /** Log caches: snapshots that failed (the log is then kept whole). */
    public final LongAdder snapshotFailures = new LongAdder();
}
