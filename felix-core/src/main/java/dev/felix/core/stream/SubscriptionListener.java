package dev.felix.core.stream;

import dev.felix.core.FelixError;

/**
 * How a subscription tells its consumer (a transport, or an in-process reader) that there is work.
 * Called from the shard's writer thread: implementations must return quickly and never block or call
 * back into the shard; typically they schedule a drain on their own thread.
 */
public interface SubscriptionListener {

    /** The queue went from empty to non-empty: {@link Subscription#poll()} has something. */
    void onDeliveryReady();

    /**
     * The broker ended the subscription (stream deleted, broker shutting down, history lost while
     * replaying). Items already queued may still be polled; nothing more will arrive.
     */
    void onEnd(FelixError error);
}
