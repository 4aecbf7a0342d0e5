package dev.felix.cluster.relay;

import dev.felix.core.stream.EventBatch;

/**
 * A batch on its way through the relay: the shard it belongs to, when this node received it and the instant
 * past which it may no longer be delivered ({@code receivedNanos + deadline}).
 *
 * <p>Immutable but for {@link #lossCounted}, which only the batch's worker touches.
 */
final class Routed {

    private final ShardFeed feed;
    private final EventBatch batch;
    private final long receivedNanos;
    private final long deadlineNanos;
    /** The batch's loss was counted in the metrics already (it is counted once, however many lost it). */
    boolean lossCounted;

    Routed(ShardFeed feed, EventBatch batch, long receivedNanos, long deadlineNanos) {
        this.feed = feed;
        this.batch = batch;
        this.receivedNanos = receivedNanos;
        this.deadlineNanos = deadlineNanos;
    }

    ShardFeed feed() {
        return feed;
    }

    EventBatch batch() {
        return batch;
    }

    long receivedNanos() {
        return receivedNanos;
    }

    /** Whether {@code nowNanos} is at or past the deadline (overflow-safe comparison of nanoTime values). */
    boolean expired(long nowNanos) {
        return nowNanos - deadlineNanos >= 0;
    }
}
