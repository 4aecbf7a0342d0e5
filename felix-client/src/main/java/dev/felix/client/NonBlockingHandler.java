package dev.felix.client;

/**
 * A {@link SubscriptionHandler} declared never to block: the SDK calls it on the connection's I/O thread as each
 * event is read, with no hand-off to a handler thread (one thread wake-up less per delivery, which is most of what
 * a small event costs the subscriber).
 *
 * <p>The price is that the handler shares the thread that reads every stream of its connection: while it runs,
 * nothing else of that connection is read or written. So it must be short and must not wait. A blocking SDK call
 * made from it ({@link Publisher#publish}, {@link FelixClient#subscribe(SubscribeOptions)}, a cache read,
 * {@link Subscription#next(java.time.Duration)} with a timeout, ...) is refused at once with
 * {@link dev.felix.wire.ErrorCode#BAD_REQUEST}, because it would wait for the very thread it holds; the
 * asynchronous forms ({@link Publisher#publishAsync}, {@link FelixClient#subscribeAsync}) are fine. Hand anything
 * longer to an executor of your own.
 *
 * <p>Ordering, gaps and the end of the subscription are reported exactly as for a {@link SubscriptionHandler}
 * running on the handler threads; an exception thrown by the handler ends the subscription.
 *
 * <pre>{@code
 * client.subscribe(SubscribeOptions.of(ref), (NonBlockingHandler) event -> latest.set(event.payload()));
 * }</pre>
 */
@FunctionalInterface
public interface NonBlockingHandler extends SubscriptionHandler {
}
