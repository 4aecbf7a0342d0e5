package dev.felix.core.stream;

import dev.felix.core.QueueLimits;
import dev.felix.core.writer.ConsumerQueue;

/**
 * The bounded queue between a shard's writer and one subscriber's delivery loop: event batches and gap
 * notices, in order (accounting, bounds and the space signal: {@link ConsumerQueue}). Gap notices hold no
 * events and are always accepted, but the writer only adds one just before a batch or when the consumer has
 * freed space, so they cannot pile up.
 *
 * <p><b>Threads.</b> The shard's writer offers; the subscriber's consumer polls.
 *
 * <p><b>Shares.</b> A live batch in the queue holds one of its shares ({@link EventBatch}): the consumer that polls it
 * owns that share and gives it back once it has written the batch; a batch the queue evicts ({@code drop_old}) or
 * clears is given back here.
 */
final class SubscriberQueue extends ConsumerQueue<Delivery> {

    SubscriberQueue(QueueLimits limits, Runnable spaceListener) {
        super(limits, spaceListener);
    }

    /**
     * Adds {@code gap} (if not null) then {@code batch}, if the batch fits. When it does not fit and
     * {@code signalWhenSpace} is set, the space listener will run once the consumer frees room.
     */
    synchronized Offer offer(GapNotice gap, EventBatch batch, boolean signalWhenSpace) {
        if (!fits(batch.eventCount(), batch.payloadBytes())) {
            if (signalWhenSpace) {
                wantSpace();
            }
            return Offer.FULL;
        }
        boolean wasEmpty = items().isEmpty();
        if (gap != null) {
            items().addLast(gap);
        }
        append(batch, batch.eventCount(), batch.payloadBytes());
        return wasEmpty ? Offer.ADDED_WAKE : Offer.ADDED;
    }

    /** Adds a gap notice on its own (it carries no events). */
    synchronized Offer offerGap(GapNotice gap) {
        return append(gap, 0, 0);
    }

    /**
     * Extends the gap notice at the tail of the queue to {@code to}, if the consumer has not taken it yet, it
     * has {@code reason} and it ends just before {@code from}; so one skipped run reaches the consumer as one
     * notice even when the first part was already queued.
     *
     * @return whether the tail gap now covers {@code from..to}
     */
    synchronized boolean extendTailGap(long from, long to, GapNotice.Reason reason) {
        if (items().peekLast() instanceof GapNotice last && last.reason() == reason && last.to() + 1 == from) {
            items().pollLast();
            items().addLast(last.extendTo(to));
            return true;
        }
        return false;
    }

    /** Result of {@link #evictOldestAndOffer}: events evicted, and whether the consumer must be woken. */
    record Eviction(long evicted, boolean wake) {
    }

    /**
     * {@code drop_old}: evicts queued items from the head until {@code batch} fits, replaces them with one gap
     * notice at the head (merged with a gap already there), then adds {@code gap} (if any) and the batch at
     * the tail.
     *
     * @return events evicted, and whether the queue was empty (the consumer may have drained it since the
     *         offer that found it full, and then it waits for a wake-up)
     */
    synchronized Eviction evictOldestAndOffer(GapNotice gap, EventBatch batch, int shard) {
        boolean wasEmpty = items().isEmpty();
        long evicted = 0;
        long gapFrom = -1;
        long gapTo = -1;
        while (!items().isEmpty() && !fits(batch.eventCount(), batch.payloadBytes())) {
            Delivery head = (Delivery) items().pollFirst();
            long from;
            long to;
            if (head instanceof EventBatch b) {
                b.releaseShare(); // the queue's share: nobody will write it now
                uncount(b.eventCount(), b.payloadBytes());
                evicted += b.eventCount();
                from = b.baseOffset();
                to = b.lastOffset();
            } else {
                GapNotice g = (GapNotice) head;
                from = g.from();
                to = g.to();
            }
            if (gapFrom < 0) {
                gapFrom = from;
            }
            gapTo = to;
        }
        if (gapFrom >= 0) {
            // A gap notice already at the head is adjacent: merge so the consumer sees one range.
            if (items().peekFirst() instanceof GapNotice next && next.from() == gapTo + 1) {
                items().pollFirst();
                gapTo = next.to();
            }
            items().addFirst(new GapNotice(shard, gapFrom, gapTo, GapNotice.Reason.QUEUE_OVERFLOW));
        }
        // A queue that was not empty has a consumer that already holds a wake-up; an empty one does not.
        if (gap != null) {
            items().addLast(gap);
        }
        append(batch, batch.eventCount(), batch.payloadBytes());
        return new Eviction(evicted, wasEmpty);
    }

    /** Empties the queue (the consumer went away), giving back the shares of the batches in it. */
    @Override
    public synchronized void clear() {
        for (Object item : items()) {
            if (item instanceof EventBatch b) {
                b.releaseShare();
            }
        }
        super.clear();
    }

    /** The next item without taking it, or null; consumer thread only. */
    synchronized Delivery peek() {
        return (Delivery) items().peekFirst();
    }

    /**
     * {@link #peek()}, with a hold on the lent memory of a batch it returns ({@link EventBatch#releaseLent()}): taken
     * under the same lock as a {@code drop_old} eviction, so the writer evicting the batch before the consumer takes it
     * cannot return memory the consumer still reads. Consumer thread only.
     */
    synchronized Delivery peekHeld() {
        Delivery d = (Delivery) items().peekFirst();
        if (d instanceof EventBatch b) {
            b.retainLent();
        }
        return d;
    }

    @Override
    protected Delivery take() {
        Delivery d = (Delivery) items().pollFirst();
        if (d != null) {
            uncount(d.eventCount(), d.payloadBytes());
        }
        return d;
    }
}
