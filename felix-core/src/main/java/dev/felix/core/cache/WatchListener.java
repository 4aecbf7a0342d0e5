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
     * polls until {@code null}; it is told again only after it found the queue empty.
     */
    void onReady();
}
