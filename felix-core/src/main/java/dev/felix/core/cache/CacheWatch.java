package dev.felix.core.cache;

/**
 * A consumer's handle on one watch of a cache.
 *
 * <p><b>Thread-safety:</b> {@link #poll()} must be called by one thread at a time (the consumer);
 * everything else is thread-safe. After {@link WatchListener#onReady()} the consumer polls until
 * {@code null}; it may stop early (say, its connection is not writable) and poll again later, since the
 * watch keeps its queue. Nothing is lost silently: if the consumer falls behind its queue, the cache ends the
 * watch with a {@link WatchEnded} after everything already queued.
 *
 * <p>The items, their order and the offset convention are described in {@link WatchItem}. Values in the
 * items are shared with the cache: never modify them.
 */
public final class CacheWatch implements AutoCloseable {

    private final Cache cache;
    private final Watcher watcher;
    private final long startOffset;
    private final boolean snapshot;
    private final long incarnation;

    CacheWatch(Cache cache, Watcher watcher, long startOffset, boolean snapshot, long incarnation) {
        this.cache = cache;
        this.watcher = watcher;
        this.startOffset = startOffset;
        this.snapshot = snapshot;
        this.incarnation = incarnation;
    }

    /** Node-unique id of this watch. */
    public long id() {
        return watcher.id;
    }

    /** The key prefix watched, or null for every key. */
    public String prefix() {
        return watcher.prefix;
    }

    /**
     * The offset the watch starts at: the snapshot's offset N (the first change delivered after the
     * snapshot has offset N or more), or the resume offset it was asked for.
     */
    public long startOffset() {
        return startOffset;
    }

    /** Whether the watch begins with a snapshot (it was opened without a resume offset). */
    public boolean startsWithSnapshot() {
        return snapshot;
    }

    /** The cache's incarnation when the watch started; pass it back when resuming. */
    public long incarnation() {
        return incarnation;
    }

    /**
     * How far the cache has fed this watch: every change below this offset that the watch covers has been
     * queued (it may still be waiting to be polled), and the ones not covered (other prefixes) were skipped.
     * Once the consumer has polled everything, this is the offset to resume from — useful for a prefix watch
     * that may receive nothing for a long time. To know that everything below an offset was applied, read
     * this first, then poll until {@code null}.
     */
    public long position() {
        return watcher.next;
    }

    /** How many watches the cache feeds now, this one included (a volatile read; any thread). */
    public int watchesOfCache() {
        return cache.watchCount();
    }

    /** The next item in order, or null when nothing is queued. Consumer thread only. */
    public WatchItem poll() {
        return watcher.queue.poll();
    }

    /** Changes queued for this watch right now. */
    public long queuedChanges() {
        return watcher.queue.changes();
    }

    /**
     * Whether the queued changes fill half this watch's queue (events or bytes). The change that gets it there
     * wakes the consumer ({@link WatchListener#onReady()}) even though the queue was not empty, so a consumer that
     * holds changes back must send once this is true, or the watch may overflow and end.
     */
    public boolean queueHalfFull() {
        return watcher.queue.atHalf();
    }

    /** Stops the watch; queued items are discarded. Idempotent. */
    @Override
    public void close() {
        cache.unwatch(watcher);
    }

    @Override
    public String toString() {
        return "CacheWatch[" + cache.name() + ", id=" + watcher.id + ", prefix=" + watcher.prefix + ", start="
                + startOffset + "]";
    }
}
