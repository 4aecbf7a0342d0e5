package dev.felix.client;

/** What a subscription's client-side receive queue does when the application does not keep up. */
public enum ReceivePolicy {
    /**
     * Stop reading from the broker: the broker's subscriber queue then applies its own policy (the
     * default; loss, if any, is decided and reported in one place, the broker).
     */
    BLOCK,
    /** Drop the newest events; the application receives a {@code client_queue_overflow} gap. */
    DROP_NEW,
    /** Drop the oldest queued events; the application receives a {@code client_queue_overflow} gap. */
    DROP_OLD
}
