package dev.felix.cluster.relay;

import dev.felix.core.stream.EventBatch;

/**
 * A batch on its way through the relay: the shard it belongs to, when this node received it and the instant
 * past which it may no longer be delivered ({@code receivedNanos + deadline}).
 */
record Routed(ShardFeed feed, EventBatch batch, long receivedNanos, long deadlineNanos) {

    /** Whether {@code nowNanos} is at or past the deadline (overflow-safe comparison of nanoTime values). */
    boolean expired(long nowNanos) {
        return nowNanos - deadlineNanos >= 0;
    }
}
