package dev.felix.core.cache;

import dev.felix.core.QueueLimits;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The bounded queue between a cache's writer (the only producer) and one watcher's consumer, limited in
 * changes and bytes ({@link QueueLimits}).
 *
 * <p>Items, in order: at most one pending snapshot (first), changes, at most one {@link WatchEnded}
 * (last). The snapshot is held as an array of the cache's own immutable nodes and cut into
 * {@link SnapshotChunk}s only as the consumer polls; it does not count against the limits (it is bounded by
 * the cache's own size, and its values are shared with the cache), so a snapshot never overflows a watch.
 * Changes count; an empty queue accepts any single change. The end marker is always accepted.
 *
 * <p>Guarded by its own monitor: exactly two threads touch it and critical sections are a few field
 * updates. When the producer is refused it may ask for a signal; the consumer then runs the space listener
 * (outside the monitor) once the queue has drained to half its limits.
 */
final class WatcherQueue {

    /** Most entries in one snapshot chunk. */
    static final int CHUNK_ENTRIES = 1024;
    /** Most value and key bytes in one snapshot chunk (a chunk always holds at least one entry). */
    static final long CHUNK_BYTES = 1L << 20;

    /** A snapshot not yet fully polled. */
    private static final class PendingSnapshot {
        final long offset;
        final EntryTable.Node[] nodes;
        int next;

        PendingSnapshot(long offset, EntryTable.Node[] nodes) {
            this.offset = offset;
            this.nodes = nodes;
        }
    }

    /** Result of an offer. */
    enum Offer {
        ADDED_WAKE, ADDED, FULL
    }

    private final ArrayDeque<Object> items = new ArrayDeque<>();
    private final QueueLimits limits;
    private final Runnable spaceListener;
    private long events;
    private long bytes;
    private boolean wantSpace;
    private boolean ended;

    WatcherQueue(QueueLimits limits, Runnable spaceListener) {
        this.limits = limits;
        this.spaceListener = spaceListener;
    }

    /** Queues a snapshot at {@code offset} (first item of a new watch). Returns whether to wake the consumer. */
    synchronized boolean addSnapshot(long offset, EntryTable.Node[] nodes) {
        boolean wasEmpty = items.isEmpty();
        items.addLast(new PendingSnapshot(offset, nodes));
        return wasEmpty;
    }

    /**
     * Adds a change if it fits. When it does not and {@code signalWhenSpace} is set, the space listener runs
     * once the consumer has freed room.
     */
    synchronized Offer offer(Change c, boolean signalWhenSpace) {
        if (ended) {
            return Offer.FULL; // nothing follows the end marker
        }
        long w = ChangeRing.weight(c);
        if (events > 0 && (events + 1 > limits.events() || bytes + w > limits.bytes())) {
            if (signalWhenSpace) {
                wantSpace = true;
            }
            return Offer.FULL;
        }
        boolean wasEmpty = items.isEmpty();
        items.addLast(c);
        events++;
        bytes += w;
        return wasEmpty ? Offer.ADDED_WAKE : Offer.ADDED;
    }

    /** Appends the end marker; nothing is accepted after it. Returns whether to wake the consumer. */
    synchronized boolean end(WatchEnded marker) {
        if (ended) {
            return false;
        }
        ended = true;
        wantSpace = false;
        boolean wasEmpty = items.isEmpty();
        items.addLast(marker);
        return wasEmpty;
    }

    /** Asks for a space signal, or runs it now if the queue is already at or below half its limits. */
    void requestSpaceSignal() {
        boolean now;
        synchronized (this) {
            now = belowHalf();
            if (!now) {
                wantSpace = true;
            }
        }
        if (now) {
            spaceListener.run();
        }
    }

    /** The next item, or null. Consumer thread only. */
    WatchItem poll() {
        WatchItem out;
        boolean signal;
        synchronized (this) {
            Object head = items.peekFirst();
            if (head == null) {
                out = null;
            } else if (head instanceof PendingSnapshot s) {
                out = chunk(s);
                if (((SnapshotChunk) out).last()) {
                    items.pollFirst();
                }
            } else {
                items.pollFirst();
                if (head instanceof Change c) {
                    events--;
                    bytes -= ChangeRing.weight(c);
                }
                out = (WatchItem) head;
            }
            signal = wantSpace && belowHalf();
            if (signal) {
                wantSpace = false;
            }
        }
        if (signal) {
            spaceListener.run();
        }
        return out;
    }

    /** Room left, as {changes, bytes}; an empty queue reports room for at least one change. */
    synchronized long[] room() {
        if (events == 0) {
            return new long[] {Math.max(1, limits.events()), Math.max(1, limits.bytes())};
        }
        return new long[] {Math.max(0, limits.events() - events), Math.max(0, limits.bytes() - bytes)};
    }

    synchronized boolean isEmpty() {
        return items.isEmpty();
    }

    /** Changes queued right now. */
    synchronized long changes() {
        return events;
    }

    /** Empties the queue (the consumer closed the watch). */
    synchronized void clear() {
        items.clear();
        events = 0;
        bytes = 0;
        wantSpace = false;
        ended = true;
    }

    private static SnapshotChunk chunk(PendingSnapshot s) {
        int from = s.next;
        int to = from;
        long chunkBytes = 0;
        while (to < s.nodes.length && to - from < CHUNK_ENTRIES) {
            long w = s.nodes[to].weight();
            if (to > from && chunkBytes + w > CHUNK_BYTES) {
                break;
            }
            chunkBytes += w;
            to++;
        }
        List<CacheEntry> entries = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            entries.add(s.nodes[i].entry());
        }
        s.next = to;
        return new SnapshotChunk(s.offset, entries, to == s.nodes.length);
    }

    private boolean belowHalf() {
        return events <= limits.events() / 2 && bytes <= limits.bytes() / 2;
    }
}
