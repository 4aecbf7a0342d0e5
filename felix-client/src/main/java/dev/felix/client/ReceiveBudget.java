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
 * On a multiplexed session the broker sends a {@code block} subscription as many events as it holds credit for,
 * whatever the client's memory; the budget withholds further credit ({@link MuxChannel#consumed()}) but cannot
 * take back what was granted. So a stalled {@code block} subscription can hold up to its credit window
 * ({@code min(receiveQueueEvents / 2, 4096)} events, plus the rest of a batch sent whole) however spent the
 * budget is. Reserving credit from the budget at subscribe time would bound that too, but events carry no size
 * until they arrive: reserving at the size the queue limits imply (2 KiB) cut the initial credit of a client
 * with hundreds of subscriptions of small events, and the broker could no longer send each batch once for all
 * of them.
 *
 * <p><b>Threads.</b> Thread-safe, lock-free; read by queues (event loops) and consumers (application threads).
 */
final class ReceiveBudget {

    private final long limit;
    private final AtomicLong used = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();
    private final AtomicInteger queues = new AtomicInteger();
    /** Times an event (or a credit grant) was refused because the budget was exhausted. */
    final LongAdder exhausted = new LongAdder();

    ReceiveBudget(long limit) {
        this.limit = limit;
    }

    /** An unlimited budget, for queues used on their own (tests). */
    static ReceiveBudget unlimited() {
        return new ReceiveBudget(Long.MAX_VALUE);
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
        return queueEvents == 0 || used.get() + size <= limit
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

}
