package dev.felix.core.cache;

/**
 * How a watch tells its consumer that there is something to poll. Called from the cache's writer thread:
 * implementations must return quickly, never block and never call back into the cache; typically they
 * schedule a drain on their own thread. The first call (the snapshot, or the first replayed change) may come
 * right after the watch's future completed, on the same thread.
 */
@FunctionalInterface
public interface WatchListener {

    /**
     * The watch's queue went from empty to non-empty: {@link CacheWatch#poll()} has something. The consumer
     * polls until {@code null}; it is told again only after it found the queue empty, or, while it is
     * {@linkplain #holdingBack() holding back}, when the queue fills to half.
     */
    void onReady();

    /**
     * Whether the consumer is holding queued changes back on purpose now (the broker's watch linger sends a
     * cache's quick changes together). While it is, the change that fills the queue to half its limits calls
     * {@link #onReady()} again, so that it sends before the queue overflows and ends the watch. A consumer that
     * drains whenever told is not told twice (the default). Called on the cache's writer thread after each such
     * change, so it must be cheap; a consumer that starts holding back must set what this returns before it
     * looks at {@link CacheWatch#queueHalfFull()}, so that either it sees the queue at half or the writer sees it
     * holding back.
     */
    default boolean holdingBack() {
        return false;
    }
}
