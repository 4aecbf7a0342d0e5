package dev.felix.client;

import dev.felix.wire.ErrorCode;

/** What a publish does when the {@code client_publish_queue} (events and bytes in flight) is full. */
public enum PublishQueuePolicy {
    /** Wait for room, up to the request timeout (the default: publishers are slowed, nothing is lost). */
    BLOCK,
    /** Refuse the publish at once with {@link ErrorCode#OVERLOADED}; the caller decides what to do. */
    DROP_NEW
}
