package dev.felix.core.cache;

/**
 * The most recent visible changes of a cache, contiguous by offset, bounded in changes and in bytes: the
 * history a memory cache can resume watches from, and the fast path (before the log) of a log cache.
 * When either bound is reached the oldest change is dropped; the ring always keeps the newest change, however
 * large. Writer-confined.
 */
final class ChangeRing {

    private final Change[] slots;
    private final long maxBytes;
    /** Offset of the oldest held change (or of the next change to add, when empty). */
    private long first;
    private int head;
    private int count;
    private long bytes;

    /**
     * @param events  most changes held
     * @param maxBytes most bytes held (see {@link #weight})
     * @param next    offset of the first change that will be added
     */
    ChangeRing(int events, long maxBytes, long next) {
        this.slots = new Change[events];
        this.maxBytes = maxBytes;
        this.first = next;
    }

    /** Bytes a change is accounted for: its value, its key (UTF-16) and a fixed overhead. */
    static long weight(Change c) {
        return (c.value() == null ? 0 : c.value().length) + 2L * c.key().length() + 48;
    }

    /** Adds the next change; its offset must follow the newest held one. */
    void add(Change c) {
        if (c.offset() != first + count) {
            throw new IllegalStateException("change ring expects offset " + (first + count) + ", got " + c.offset());
        }
        long w = weight(c);
        while (count > 0 && (count == slots.length || bytes + w > maxBytes)) {
            dropOldest();
        }
        slots[(head + count) % slots.length] = c;
        count++;
        bytes += w;
    }

    /** The change at {@code offset}, or null when it is not held. */
    Change get(long offset) {
        if (offset < first || offset >= first + count) {
            return null;
        }
        return slots[(int) ((head + (offset - first)) % slots.length)];
    }

    /** Oldest offset held, or {@code visible} when the ring is empty. */
    long oldest(long visible) {
        return count == 0 ? visible : first;
    }

    int size() {
        return count;
    }

    private void dropOldest() {
        Change c = slots[head];
        slots[head] = null;
        head = (head + 1) % slots.length;
        count--;
        bytes -= weight(c);
        first++;
    }
}
