package dev.felix.core.cache;

/**
 * The writer's record of one watch. Every field but the final ones is writer-confined.
 */
final class Watcher {

    /** How the watcher is fed. */
    enum Mode {
        /** At the visible tail: each change is offered as it becomes visible. */
        LIVE,
        /** Behind the tail: fed by offset from the change ring (or the log) as its queue has room. */
        REPLAY
    }

    final long id;
    /** Keys this watch covers; null = every key. */
    final String prefix;
    final WatcherQueue queue;
    final WatchListener listener;
    /**
     * Offset of the next change this watcher has to be given or skip (a cache offset). Written by the writer
     * only, after the change before it was queued; volatile so {@link CacheWatch#position()} can read it.
     */
    volatile long next;
    Mode mode;
    boolean closed;
    /** A pump is already posted for this watcher (replay yields the writer between rounds). */
    boolean pumpQueued;

    Watcher(long id, String prefix, WatchListener listener, WatcherQueue queue) {
        this.id = id;
        this.prefix = prefix;
        this.listener = listener;
        this.queue = queue;
    }

    boolean matches(String key) {
        return prefix == null || key.startsWith(prefix);
    }
}
