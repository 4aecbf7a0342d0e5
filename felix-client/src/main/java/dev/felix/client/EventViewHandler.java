package dev.felix.client;

/**
 * A {@link NonBlockingHandler} that reads each payload where it arrived instead of receiving a copy: the SDK hands
 * it an {@link EventView} of the received frame, valid only during the call. A subscriber that decodes each event
 * at once (a sequence number, a key to look up, a few fields) then costs no allocation and no copy per event; one
 * that keeps the bytes copies what it keeps ({@link EventView#copyPayload()}).
 *
 * <p>It runs on the connection's I/O thread, with every rule of a {@link NonBlockingHandler}: short, never waiting.
 * Events that had to wait in the subscription's receive queue (behind a gap notice, or queued before the handler was
 * set) are copies that reach it through the same method, in the same order.
 *
 * <pre>{@code
 * client.subscribe(SubscribeOptions.of(ref), (EventViewHandler) view -> prices.update(view.payload()));
 * }</pre>
 */
@FunctionalInterface
public interface EventViewHandler extends NonBlockingHandler {

    /** One event; {@code view} and its payload are valid only until this returns. */
    void onEvent(EventView view);

    /** An event that waited in the receive queue: handed on as a view of its copy. */
    @Override
    default void onEvent(Event event) {
        onEvent(EventView.of(event));
    }
}
