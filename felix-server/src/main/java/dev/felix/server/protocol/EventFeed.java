package dev.felix.server.protocol;

import dev.felix.core.stream.Delivery;
import dev.felix.core.stream.Subscription;
import dev.felix.core.stream.SubscriptionListener;

/**
 * What a {@link SubscriptionWriter} pulls one shard subscription's deliveries from: the core's queue of a shard
 * this node leads ({@link #of(Subscription)}), or a relayed shard's local queue ({@link RelayedFeed}). Threads as
 * {@link Subscription}: {@link #poll()} and {@link #peekHeld()} from the consumer only, the rest from any thread.
 */
interface EventFeed {

    long id();

    int shard();

    boolean durable();

    long incarnation();

    /** Sets who is told of new deliveries and of the end; told at once if items are queued already. */
    void listen(SubscriptionListener listener);

    Delivery poll();

    /**
     * The next item without taking it; consumer only (a consumer short of credit looks before it polls). A batch
     * returned holds its lent memory until the caller calls {@link dev.felix.core.stream.EventBatch#releaseLent()}
     * ({@link Subscription#peekHeld()}).
     */
    Delivery peekHeld();

    /** The next item without taking it and without a hold: to look, not to read its payloads. Consumer only. */
    Delivery peek();

    long queuedEvents();

    void close();

    /** The core subscription as a feed. */
    static EventFeed of(Subscription s) {
        return new EventFeed() {
            @Override
            public long id() {
                return s.id();
            }

            @Override
            public int shard() {
                return s.shard();
            }

            @Override
            public boolean durable() {
                return s.durable();
            }

            @Override
            public long incarnation() {
                return s.incarnation();
            }

            @Override
            public void listen(SubscriptionListener listener) {
                s.listen(listener);
            }

            @Override
            public Delivery poll() {
                return s.poll();
            }

            @Override
            public Delivery peekHeld() {
                return s.peekHeld();
            }

            @Override
            public Delivery peek() {
                return s.peek();
            }

            @Override
            public long queuedEvents() {
                return s.queuedEvents();
            }

            @Override
            public void close() {
                s.close();
            }
        };
    }
}
