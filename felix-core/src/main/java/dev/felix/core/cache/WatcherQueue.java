package dev.felix.core.cache;

import dev.felix.core.QueueLimits;
import dev.felix.core.writer.ConsumerQueue;

/**
 * The bounded queue between a cache's writer and one watcher's consumer, limited in changes and bytes
 * (accounting, bounds and the space signal: {@link ConsumerQueue}).
 *
 * <p>Items, in order: at most one pending snapshot (first), changes, at most one {@link WatchEnded} (last).
 * The snapshot is a {@link SharedSnapshot} (the cache's own immutable nodes, shared by the watches that start at
 * it) cut into {@link SnapshotChunk}s only as the consumers poll; it does not count against the limits (it is bounded by the cache's own size, and its
 * values are shared with the cache), so a snapshot never overflows a watch. Changes count one event each; the
 * end marker is always accepted and nothing is accepted after it.
 *
 * <p><b>Waking at half.</b> Besides the change that finds the queue empty, the change that fills it to half its
 * limits returns {@link Offer#ADDED_HALF}: the fanout wakes a consumer that holds changes back on purpose
 * ({@link WatchListener#holdingBack()}: the broker's watch linger sends a cache's quick changes together) in time
 * to send before the queue overflows and ends the watch.
 *
 * <p><b>Threads.</b> The cache's writer offers; the watcher's consumer polls.
 */
final class WatcherQueue extends ConsumerQueue<WatchItem> {

    /** Most entries in one snapshot chunk. */
    static final int CHUNK_ENTRIES = 1024;
    /** Most value and key bytes in one snapshot chunk (a chunk always holds at least one entry). */
    static final long CHUNK_BYTES = 1L << 20;

    /** A snapshot not yet fully polled: the shared snapshot and the index of this watch's next chunk. */
    private static final class PendingSnapshot {
        final SharedSnapshot snapshot;
        int next;

        PendingSnapshot(SharedSnapshot snapshot) {
            this.snapshot = snapshot;
        }
    }

    private boolean ended;

    WatcherQueue(QueueLimits limits, Runnable spaceListener) {
        super(limits, spaceListener);
    }

    /** Queues a snapshot (first item of a new watch). Returns whether to wake the consumer. */
    synchronized boolean addSnapshot(SharedSnapshot snapshot) {
        return append(new PendingSnapshot(snapshot), 0, 0) == Offer.ADDED_WAKE;
    }

    /**
     * Adds a change if it fits ({@link Offer#ADDED_HALF} when it fills the queue to half). When it does not and
     * {@code signalWhenSpace} is set, the space listener runs once the consumer has freed room.
     */
    synchronized Offer offer(Change c, boolean signalWhenSpace) {
        if (ended) {
            return Offer.FULL; // nothing follows the end marker
        }
        long w = ChangeRing.weight(c);
        if (!fits(1, w)) {
            if (signalWhenSpace) {
                wantSpace();
            }
            return Offer.FULL;
        }
        boolean belowHalfBefore = !atHalf();
        Offer added = append(c, 1, w);
        return added == Offer.ADDED && belowHalfBefore && atHalf() ? Offer.ADDED_HALF : added;
    }

    /** Whether the queued changes fill half its limits (events or bytes): a consumer holding back sends now. */
    synchronized boolean atHalf() {
        QueueLimits l = limits();
        return events() >= Math.max(1, l.events() / 2) || bytes() >= Math.max(1, l.bytes() / 2);
    }

    /** Appends the end marker; nothing is accepted after it. Returns whether to wake the consumer. */
    synchronized boolean end(WatchEnded marker) {
        if (ended) {
            return false;
        }
        ended = true;
        cancelSpaceRequest();
        return append(marker, 0, 0) == Offer.ADDED_WAKE;
    }

    /** Changes queued right now. */
    long changes() {
        return events();
    }

    /** Empties the queue (the consumer closed the watch); nothing is accepted afterwards. */
    @Override
    public synchronized void clear() {
        super.clear();
        ended = true;
    }

    @Override
    protected WatchItem take() {
        Object head = items().peekFirst();
        if (head == null) {
            return null;
        }
        if (head instanceof PendingSnapshot s) {
            SnapshotChunk chunk = s.snapshot.chunk(s.next++);
            if (chunk.last()) {
                items().pollFirst();
            }
            return chunk;
        }
        items().pollFirst();
        if (head instanceof Change c) {
            uncount(1, ChangeRing.weight(c));
        }
        return (WatchItem) head;
    }
}
