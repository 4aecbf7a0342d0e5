package dev.felix.client;

/**
 * Callback-style consumption ({@link FelixClient#subscribe(SubscribeOptions, SubscriptionHandler)}).
 * Called on one of the client's shared handler threads ({@link ClientConfig.Builder#handlerThreads}), one item at a
 * time, in order; a handler that blocks holds one of those threads. Exceptions thrown by a handler end the
 * subscription (an SDK exception keeps its code). A handler declared {@link NonBlockingHandler} is called on the
 * connection's I/O thread instead, saving a thread hand-off per delivery.
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
