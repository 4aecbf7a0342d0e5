package dev.felix.server.protocol;

/**
 * One shard subscription being served on a connection — on its own event stream ({@link SubscriptionWriter})
 * or as a channel of a multiplexed session ({@link MuxSession}) — as the connection and the node count and
 * end them.
 */
interface LiveSubscription {

    /** Events queued for it in the core right now. Any thread. */
    long queuedEvents();

    /**
     * Ends it with {@code error}, told to the client after the events already queued for it (the drain
     * path: {@code unavailable}, "broker shutting down"). Any thread.
     */
    void onEnd(dev.felix.core.FelixError error);

    /** Ends it: closes the core subscription and whatever carries it. Event loop; idempotent. */
    void close();
}
