package dev.felix.core.stream;

import dev.felix.core.QueueLimits;
import java.util.ArrayDeque;

/**
 * The bounded queue between a shard's writer (the only producer) and one subscriber's delivery loop
 * (the only consumer), limited in events and payload bytes.
 *
 * <p>Guarded by its own monitor: exactly two threads touch it and critical sections are a few field
 * updates. Gap notices hold no events and are always accepted, but the writer only adds one just
 * before a batch or when the consumer has freed space, so they cannot pile up.
 *
 * <p>When the producer is refused it may ask for a signal ({@code wantSpace}); the consumer then
 * runs the space listener once the queue has drained to half its limits. Listeners are invoked
 * outside the monitor.
 */
final class SubscriberQueue {

    private final ArrayDeque<Delivery> items = new ArrayDeque<>();
    private final QueueLimits limits;
    private final Runnable spaceListener;
    private long events;
    private long bytes;
    private boolean wantSpace;

    SubscriberQueue(QueueLimits limits, Runnable spaceListener) {
        this.limits = limits;
        this.spaceListener = spaceListener;
    }

    QueueLimits limits() {
        return limits;
    }

    /** Result of an offer: whether it was added, and whether the consumer must be woken. */
    enum Offer {
        ADDED_WAKE, ADDED, FULL
    }

    /**
     * Adds {@code gap} (if not null) then {@code batch}, if the batch fits. When it does not fit and
     * {@code signalWhenSpace} is set, the space listener will run once the consumer frees room.
     */
    synchronized Offer offer(GapNotice gap, EventBatch batch, boolean signalWhenSpace) {
        if (!fits(batch)) {
            if (signalWhenSpace) {
                wantSpace = true;
            }
            return Offer.FULL;
        }
        boolean wasEmpty = items.isEmpty();
        if (gap != null) {
            items.addLast(gap);
        }
        add(batch);
        return wasEmpty ? Offer.ADDED_WAKE : Offer.ADDED;
    }

    /** Adds a gap notice on its own (it carries no events). */
    synchronized Offer offerGap(GapNotice gap) {
        boolean wasEmpty = items.isEmpty();
        items.addLast(gap);
        return wasEmpty ? Offer.ADDED_WAKE : Offer.ADDED;
    }

    /**
     * Extends the gap notice at the tail of the queue to {@code to}, if the consumer has not taken it
     * yet, it has {@code reason} and it ends just before {@code from}; so one skipped run reaches the
     * consumer as one notice even when the first part was already queued.
     *
     * @return whether the tail gap now covers {@code from..to}
     */
    synchronized boolean extendTailGap(long from, long to, GapNotice.Reason reason) {
        if (items.peekLast() instanceof GapNotice last && last.reason() == reason && last.to() + 1 == from) {
            items.pollLast();
            items.addLast(last.extendTo(to));
            return true;
        }
        return false;
    }

    /** Result of {@link #evictOldestAndOffer}: events evicted, and whether the consumer must be woken. */
    record Eviction(long evicted, boolean wake) {
    }

    /**
     * {@code drop_old}: evicts queued items from the head until {@code batch} fits, replaces them with
     * one gap notice at the head (merged with a gap already there), then adds {@code gap} (if any) and
     * the batch at the tail.
     *
     * @return events evicted, and whether the queue was empty (the consumer may have drained it since
     *         the offer that found it full, and then it waits for a wake-up)
     */
    synchronized Eviction evictOldestAndOffer(GapNotice gap, EventBatch batch, int shard) {
        boolean wasEmpty = items.isEmpty();
        long evicted = 0;
        long gapFrom = -1;
        long gapTo = -1;
        while (!items.isEmpty() && !fits(batch)) {
            Delivery head = items.pollFirst();
            long from;
            long to;
            if (head instanceof EventBatch b) {
                events -= b.eventCount();
                bytes -= b.payloadBytes();
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
            if (items.peekFirst() instanceof GapNotice next && next.from() == gapTo + 1) {
                items.pollFirst();
                gapTo = next.to();
            }
            items.addFirst(new GapNotice(shard, gapFrom, gapTo, GapNotice.Reason.QUEUE_OVERFLOW));
        }
        // A queue that was not empty has a consumer that already holds a wake-up; an empty one does not.
        if (gap != null) {
            items.addLast(gap);
        }
        add(batch);
        return new Eviction(evicted, wasEmpty);
    }

    /** Asks for a space signal if the queue is not already at or below half its limits. */
    void requestSpaceSignal() {
        boolean signalNow;
        synchronized (this) {
            signalNow = belowHalf();
            if (!signalNow) {
                wantSpace = true;
            }
        }
        if (signalNow) {
            spaceListener.run();
        }
    }

    /** Takes the next item, or null. Consumer thread only. */
    Delivery poll() {
        Delivery d;
        boolean signal = false;
        synchronized (this) {
            d = items.pollFirst();
            if (d == null) {
                signal = wantSpace;
            } else {
                events -= d.eventCount();
                bytes -= d.payloadBytes();
                signal = wantSpace && belowHalf();
            }
            if (signal) {
                wantSpace = false;
            }
        }
        if (signal) {
            spaceListener.run();
        }
        return d;
    }

    /**
     * Room left before the limits, as {events, bytes}; an empty queue reports at least one event of room
     * (it takes any single batch).
     */
    synchronized long[] room() {
        if (events == 0) {
            return new long[] {Math.max(1, limits.events()), Math.max(1, limits.bytes())};
        }
        return new long[] {Math.max(0, limits.events() - events), Math.max(0, limits.bytes() - bytes)};
    }

    synchronized boolean isEmpty() {
        return items.isEmpty();
    }

    synchronized long events() {
        return events;
    }

    synchronized long bytes() {
        return bytes;
    }

    /** Empties the queue (subscription ended). */
    synchronized void clear() {
        items.clear();
        events = 0;
        bytes = 0;
        wantSpace = false;
    }

    private boolean fits(EventBatch batch) {
        if (items.isEmpty() || events == 0) {
            return true; // an empty queue takes any batch, so an oversized one still gets through
        }
        return events + batch.eventCount() <= limits.events() && bytes + batch.payloadBytes() <= limits.bytes();
    }

    private boolean belowHalf() {
        return events <= limits.events() / 2 && bytes <= limits.bytes() / 2;
    }

    private void add(EventBatch batch) {
        items.addLast(batch);
        events += batch.eventCount();
        bytes += batch.payloadBytes();
    }
}
