package dev.felix.client;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One shard of a multiplexed subscription: the broker's channel id, where its events go ({@link ShardFeed}),
 * and its credit. The client grants a {@code window} of events up front and then, as the application takes
 * events, grants back what it took in steps of half a window — so at most a window of events is ever on its way or
 * waiting, whatever the broker has.
 *
 * <p>Under {@link ReceivePolicy#BLOCK} the client's {@link ReceiveBudget} also applies: once it is spent, a
 * subscription holding more than its fair share gets no more credit until it is back within it (an empty queue
 * always is), so it is never starved by other subscriptions that hold the budget. Credit already granted is the
 * broker's to use: a stalled block subscription can still be sent its last window.
 *
 * <p><b>Threads and buffers.</b> {@link #consumed()} from the consumer thread; everything else on the session's
 * event loop. The count of events taken since the last grant is atomic because both touch it. Touches no
 * {@code ByteBuf}s.
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
    private final AtomicLong takenSinceGrant = new AtomicLong();

    MuxChannel(int id, int shard, Subscription subscription, int window) {
        this.id = id;
        this.shard = shard;
        this.subscription = subscription;
        this.feed = new ShardFeed(subscription, shard);
        this.window = window;
    }

    /** Whether credit is returned on arrival (a drop policy) rather than as the application takes events. */
    boolean grantsOnArrival() {
        return subscription.queue().policy() != ReceivePolicy.BLOCK;
    }

    /**
     * The application took one event of this channel: returns credit to grant now, or 0. Under block, credit is
     * withheld while the client's receive budget is spent and this subscription holds more than its share; it
     * flows again once the queue is back within it (at the latest when it is empty). Consumer thread.
     */
    long consumed() {
        return grantsOnArrival() ? 0 : took(1);
    }

    /**
     * {@code n} events of this channel were handed to an {@link EventViewHandler} in place: arrived and taken at
     * once. Returns credit to grant now, or 0. Event loop.
     */
    long tookInPlace(int n) {
        return grantsOnArrival() ? arrived(n) : took(n);
    }

    /** Under block: {@code n} more events taken; the credit to grant now (half a window at least), or 0. */
    private long took(int n) {
        long taken = takenSinceGrant.addAndGet(n);
        if (taken < Math.max(1, window / 2)) {
            return 0;
        }
        if (!subscription.queue().admitsMore()) {
            return 0; // withheld: granted with a later take
        }
        return takenSinceGrant.getAndSet(0);
    }

    /** {@code n} events of this channel arrived: returns credit to grant now, or 0. Event loop. */
    long arrived(int n) {
        if (!grantsOnArrival()) {
            return 0;
        }
        long taken = takenSinceGrant.addAndGet(n);
        if (taken >= Math.max(1, window / 2)) {
            return takenSinceGrant.getAndSet(0);
        }
        return 0;
    }
}
