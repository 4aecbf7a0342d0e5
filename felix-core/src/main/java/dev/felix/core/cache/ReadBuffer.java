package dev.felix.core.cache;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * Records which entries readers used, so the writer can keep its LRU order without readers taking a lock:
 * a bounded, <b>lossy</b> multi-producer / single-consumer ring (Caffeine's read buffer, reduced to one
 * stripe).
 *
 * <p>{@link #record} (any thread) claims a slot with one CAS and gives up, dropping the access, when the
 * buffer is full or the CAS loses a race: a dropped access only makes eviction slightly less exact, it never
 * affects correctness. {@link #drain} (writer only) applies recorded accesses in order. The consumer index is
 * published with an ordered store so producers see free space.
 */
final class ReadBuffer {

    /** Slots; a power of two. */
    static final int CAPACITY = 1024;
    private static final int MASK = CAPACITY - 1;

    private final AtomicReferenceArray<EntryTable.Node> slots = new AtomicReferenceArray<>(CAPACITY);
    private final AtomicLong tail = new AtomicLong();
    /** Next slot the writer reads; written by the writer only (ordered), read by producers. */
    private final AtomicLong head = new AtomicLong();

    /**
     * Records an access; returns true when the buffer is at least half full after it (the caller then asks
     * the writer to drain).
     */
    boolean record(EntryTable.Node node) {
        long t = tail.get();
        long used = t - head.get();
        if (used >= CAPACITY) {
            return true; // full: the access is dropped
        }
        if (tail.compareAndSet(t, t + 1)) {
            slots.lazySet((int) (t & MASK), node);
        }
        return used + 1 >= CAPACITY / 2;
    }

    /** Applies every access recorded so far, oldest first. Writer thread only. */
    void drain(Consumer<EntryTable.Node> apply) {
        long h = head.get();
        long t = tail.get();
        while (h < t) {
            int i = (int) (h & MASK);
            EntryTable.Node n = slots.get(i);
            if (n == null) {
                break; // a producer claimed the slot but has not written it yet: take it next time
            }
            slots.lazySet(i, null);
            apply.accept(n);
            h++;
        }
        head.lazySet(h);
    }
}
