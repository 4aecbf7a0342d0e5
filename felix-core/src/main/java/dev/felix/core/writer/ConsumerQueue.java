package dev.felix.core.writer;

import dev.felix.core.QueueLimits;
import java.util.ArrayDeque;

/**
 * The bounded queue between a single writer (the only producer) and one consumer — a subscriber's
 * delivery loop, a watcher's — limited in events and payload bytes ({@link QueueLimits}). Subclasses decide
 * what the items are and how the consumer takes them; this class keeps the accounting and the space signal.
 *
 * <p><b>Threads.</b> Exactly two threads touch a queue: the writer offers, the consumer polls. Both go
 * through the queue's own monitor; critical sections are a few field updates. The space listener always
 * runs outside the monitor.
 *
 * <p><b>Bounds.</b> An empty queue (no events queued) accepts any single item however large, so an oversized
 * batch still gets through; otherwise an item fits only within both limits. Items that stand for no events
 * (a gap notice, an end marker) are always accepted.
 *
 * <p><b>Space signal.</b> A producer refused (or wanting to know when to continue) asks for a signal; the
 * consumer runs the space listener once the queue has drained to half its limits.
 *
 * @param <T> what the consumer takes
 */
public abstract class ConsumerQueue<T> {

    /** Result of an offer: whether the item was added, and whether the consumer must be woken. */
    public enum Offer {
        /** Added to an empty queue: wake the consumer. */
        ADDED_WAKE,
        /** Added behind other items: the consumer was already woken for them. */
        ADDED,
        /**
         * Added behind other items, and the queue now holds half its limits for the first time since it was
         * below: wake the consumer if it holds items back on purpose, so it sends before the queue overflows
         * (one that drains whenever woken needs no second wake). Only queues whose consumers may hold back
         * return it (a cache watch's).
         */
        ADDED_HALF,
        /** Not added: no room. */
        FULL
    }

    private final ArrayDeque<Object> items = new ArrayDeque<>();
    private final QueueLimits limits;
    private final Runnable spaceListener;
    private long events;
    private long bytes;
    private boolean wantSpace;

    protected ConsumerQueue(QueueLimits limits, Runnable spaceListener) {
        this.limits = limits;
        this.spaceListener = spaceListener;
    }

    public final QueueLimits limits() {
        return limits;
    }

    /** The next item, or null; consumer thread only. Runs the space listener when a waiting producer may go on. */
    public final T poll() {
        T out;
        boolean signal;
        synchronized (this) {
            out = take();
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

    /** Asks for a space signal, or runs it now if the queue is already at or below half its limits. */
    public final void requestSpaceSignal() {
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

    /**
     * Room left before the limits, as {events, bytes}; an empty queue reports at least one event of room (it
     * takes any single item).
     */
    public final synchronized long[] room() {
        if (events == 0) {
            return new long[] {Math.max(1, limits.events()), Math.max(1, limits.bytes())};
        }
        return new long[] {Math.max(0, limits.events() - events), Math.max(0, limits.bytes() - bytes)};
    }

    public final synchronized boolean isEmpty() {
        return items.isEmpty();
    }

    /** Events queued right now. */
    public final synchronized long events() {
        return events;
    }

    /** Payload bytes queued right now. */
    public final synchronized long bytes() {
        return bytes;
    }

    /** Empties the queue (the consumer went away). */
    public synchronized void clear() {
        items.clear();
        events = 0;
        bytes = 0;
        wantSpace = false;
    }

    // ------------------------------------------------------------------ for subclasses, under the monitor

    /** Takes the next item for {@link #poll()}; called holding the monitor. */
    protected abstract T take();

    /** The items, oldest first; only while holding the monitor. */
    protected final ArrayDeque<Object> items() {
        return items;
    }

    /** Whether an item of {@code n} events and {@code b} bytes fits now (an empty queue takes anything). */
    protected final boolean fits(long n, long b) {
        return events == 0 || (events + n <= limits.events() && bytes + b <= limits.bytes());
    }

    /** Records that an offer found no room and its producer wants the space signal. */
    protected final void wantSpace() {
        wantSpace = true;
    }

    /** Forgets a pending space request (the feed ended). */
    protected final void cancelSpaceRequest() {
        wantSpace = false;
    }

    /** Appends {@code item} standing for {@code n} events and {@code b} bytes; says whether to wake the consumer. */
    protected final Offer append(Object item, long n, long b) {
        boolean wasEmpty = items.isEmpty();
        items.addLast(item);
        events += n;
        bytes += b;
        return wasEmpty ? Offer.ADDED_WAKE : Offer.ADDED;
    }

    /** Accounts for items that left the queue (taken, evicted). */
    protected final void uncount(long n, long b) {
        events -= n;
        bytes -= b;
    }

    /** Accounts for items put back or added without {@link #append}. */
    protected final void count(long n, long b) {
        events += n;
        bytes += b;
    }

    private boolean belowHalf() {
        return events <= limits.events() / 2 && bytes <= limits.bytes() / 2;
    }
}
