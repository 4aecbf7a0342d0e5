package dev.felix.client;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One shard of a multiplexed subscription: the broker's channel id, where its events go ({@link ShardFeed}),
 * and its credit. The client grants credit up to a {@code window} of events and then, as the application takes
 * events, tops it back up in steps of half a window — so at most a window of events is ever on its way or
 * waiting, whatever the broker has.
 *
 * <p>Under {@link ReceivePolicy#BLOCK} credit is also drawn from the client's {@link ReceiveBudget}: every event
 * granted and not yet arrived is reserved there, a top-up is cut to what the budget has room for, and a channel
 * that has taken everything it was granted (nothing queued, nothing on its way) always gets at least one more,
 * within its fair share, so it is never starved by other subscriptions that hold the budget.
 *
 * <p>Under a drop policy of the client's receive queue ({@link ReceivePolicy#DROP_NEW},
 * {@link ReceivePolicy#DROP_OLD}) credit flows back as events <em>arrive</em> instead: the broker never holds
 * back, and the client's own queue (and budget) drops and reports what the application does not keep up with,
 * as the policy says.
 *
 * <p><b>Threads.</b> {@link #consumed()} from the consumer thread; everything else on the session's event loop.
 */
final class MuxChannel {

    final int id;
    final int shard;
    final Subscription subscription;
    final ShardFeed feed;
    private final int window;
    private final ReceiveBudget budget;
    private final AtomicLong takenSinceGrant = new AtomicLong();
    /** Block: events granted and not yet taken by the application (queued or on their way). */
    private final AtomicLong allowance = new AtomicLong();
    /** Block: events granted and not yet arrived; reserved in the budget. */
    private final AtomicLong onTheirWay = new AtomicLong();

    /**
     * @param credit what the broker was granted with the subscribe ({@link Subscription#initialCredit()}); under
     *               block it is reserved in the budget here
     */
    MuxChannel(int id, int shard, Subscription subscription, int window, long credit, ReceiveBudget budget) {
        this.id = id;
        this.shard = shard;
        this.subscription = subscription;
        this.feed = new ShardFeed(subscription, shard);
        this.window = window;
        this.budget = budget;
        if (!grantsOnArrival()) {
            budget.reserve(credit);
            allowance.set(credit);
            onTheirWay.set(credit);
        }
    }

    /** Whether credit is returned on arrival (a drop policy) rather than as the application takes events. */
    boolean grantsOnArrival() {
        return subscription.queue().policy() != ReceivePolicy.BLOCK;
    }

    /** The application took one event of this channel: returns credit to grant now, or 0. Consumer thread. */
    long consumed() {
        if (grantsOnArrival()) {
            return 0;
        }
        long a = allowance.decrementAndGet();
        long want = window - a;
        boolean starving = a <= 0;
        if (want < Math.max(1, window / 2) && !starving) {
            return 0;
        }
        long grant = budget.reserveCredit(want, starving);
        if (grant > 0) {
            allowance.addAndGet(grant);
            onTheirWay.addAndGet(grant);
        }
        return grant;
    }

    /** {@code n} events of this channel arrived: returns credit to grant now, or 0. Event loop. */
    long arrived(int n) {
        if (!grantsOnArrival()) {
            budget.unreserve(take(onTheirWay, n)); // a batch can pass its credit: it is sent whole
            return 0;
        }
        long taken = takenSinceGrant.addAndGet(n);
        if (taken >= Math.max(1, window / 2)) {
            return takenSinceGrant.getAndSet(0);
        }
        return 0;
    }

    /** The channel ended: its reserved credit goes back to the budget. Idempotent. */
    void release() {
        budget.unreserve(onTheirWay.getAndSet(0));
    }

    /** Takes up to {@code n} from {@code counter} without going below zero; returns what was taken. */
    private static long take(AtomicLong counter, long n) {
        while (true) {
            long v = counter.get();
            long t = Math.min(v, n);
            if (t <= 0 || counter.compareAndSet(v, v - t)) {
                return Math.max(0, t);
            }
        }
    }
}
