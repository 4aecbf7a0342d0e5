package dev.felix.client;

/**
 * Callback-style consumption ({@link FelixClient#subscribe(SubscribeOptions, SubscriptionHandler)}).
 * Called on the subscription's own dispatcher thread, one item at a time, in order; a slow handler
 * slows only this subscription. Exceptions thrown by a handler end the subscription.
 */
public interface SubscriptionHandler {

    void onEvent(Event event);

    /** Events that will never arrive (already re-read if the subscription heals gaps). */
    default void onGap(Gap gap) {
    }

    /** The subscription ended: {@code cause} is null after {@link Subscription#close()}. */
    default void onEnd(FelixClientException cause) {
    }
}
