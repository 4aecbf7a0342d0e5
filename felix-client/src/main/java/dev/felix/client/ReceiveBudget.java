package dev.felix.client;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Checkpoint {@code client_receive_budget}: payload bytes held by every receive queue of one
 * {@link FelixClient} together ({@link ClientConfig.Builder#receiveBudgetBytes}). Without it, each subscription
 * is bounded only by its own queue (16 MiB by default), so a thousand stalled subscriptions could hold 16 GiB.
 *
 * <h2>Admission</h2>
 * An event is admitted into a queue when the budget still has room for it, or when that queue holds less than
 * its fair share (the budget divided by the number of open queues), or when that queue is empty. So stalled
 * subscriptions can only fill the budget, never pass it, while a subscription whose application keeps up always
 * stays inside its fair share and keeps receiving. An event that is not admitted is handled by its
 * subscription's own {@link ReceivePolicy}, in the same vocabulary as its queue limits: {@code block} stops
 * reading (withholds credit), {@code drop_new} / {@code drop_old} drop with a {@code client_queue_overflow} gap.
 * Never silent loss. The fair-share exemption means the bytes held can pass the budget by at most the fair shares
 * of the queues admitted under it, i.e. never more than twice the budget.
 *
 * <h2>Credit under block</h2>
 * On a multiplexed session the broker sends a {@code block} subscription as many events as it was granted
 * credit for, whatever the client's memory. Credit is therefore drawn from the budget too: every event granted
 * and not yet arrived reserves {@link #eventEstimate} bytes, and new credit is granted only while the bytes held
 * plus those reserved fit the budget — except to a channel whose queue is empty and which has nothing on its way
 * (it would otherwise never be granted anything again). A broker batch can pass the credit it was sent against
 * (it is sent whole), so a stalled {@code block} subscription can hold one batch beyond its credit.
 *
 * <p><b>Threads.</b> Thread-safe, lock-free; read by queues (event loops) and consumers (application threads).
 */
final class ReceiveBudget {

    private final long limit;
    /** Bytes assumed per event for credit granted but not yet used. */
    private final long eventEstimate;
    private final AtomicLong used = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();
    /** Credit (events) granted to {@code block} channels and not yet arrived. */
    private final AtomicLong reservedEvents = new AtomicLong();
    private final AtomicInteger queues = new AtomicInteger();
    /** Times an event (or a credit grant) was refused because the budget was exhausted. */
    final LongAdder exhausted = new LongAdder();

    ReceiveBudget(long limit, long eventEstimate) {
        this.limit = limit;
        this.eventEstimate = Math.max(1, eventEstimate);
    }

    /** An unlimited budget, for queues used on their own (tests). */
    static ReceiveBudget unlimited() {
        return new ReceiveBudget(Long.MAX_VALUE, 1);
    }

    long limit() {
        return limit;
    }

    long used() {
        return used.get();
    }

    /** The most bytes held at once since the client started. */
    long peak() {
        return peak.get();
    }

    long eventEstimate() {
        return eventEstimate;
    }

    void queueOpened() {
        queues.incrementAndGet();
    }

    void queueClosed() {
        queues.decrementAndGet();
    }

    /** The bytes one queue may always hold, whatever the others hold. */
    long fairShare() {
        return limit / Math.max(1, queues.get());
    }

    /** Whether {@code size} more bytes may enter a queue that holds {@code queueEvents} / {@code queueBytes}. */
    boolean admits(long queueEvents, long queueBytes, long size) {
        return queueEvents == 0 || used.get() + reservedBytes() + size <= limit
                || queueBytes + size <= fairShare();
    }

    void charge(long bytes) {
        long now = used.addAndGet(bytes);
        long p;
        while (now > (p = peak.get()) && !peak.compareAndSet(p, now)) {
            // another charge raised the peak meanwhile; look again
        }
    }

    void release(long bytes) {
        used.addAndGet(-bytes);
    }

    /**
     * Credit a {@code block} channel may be granted now, up to {@code wanted} events, and reserves it. A channel
     * that is {@code starving} (it took everything it was granted) gets at least one event, and up to its fair
     * share, whatever the others hold.
     */
    long reserveCredit(long wanted, boolean starving) {
        if (wanted <= 0) {
            return 0;
        }
        long room = (limit - used.get()) / eventEstimate - reservedEvents.get();
        if (starving) {
            room = Math.max(room, Math.max(1, fairShare() / eventEstimate));
        }
        long grant = Math.min(wanted, Math.max(0, room));
        if (grant < wanted) {
            exhausted.increment();
        }
        if (grant > 0) {
            reservedEvents.addAndGet(grant);
        }
        return grant;
    }

    /** Reserves credit already granted (with a subscribe), whatever the room. */
    void reserve(long events) {
        if (events > 0) {
            reservedEvents.addAndGet(events);
        }
    }

    /** Events of credit the budget has room for now (0 if none). */
    long creditRoom() {
        return Math.max(0, (limit - used.get()) / eventEstimate - reservedEvents.get());
    }

    /** Reserved credit was used (events arrived) or given up (the channel ended). */
    void unreserve(long events) {
        if (events > 0) {
            reservedEvents.addAndGet(-events);
        }
    }

    private long reservedBytes() {
        long r = reservedEvents.get();
        return r <= 0 ? 0 : r * eventEstimate;
    }
}
