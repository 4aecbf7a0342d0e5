package dev.felix.core;

/**
 * Settings of the broker core, with every default in {@link #defaults()}.
 *
 * @param shardThreads        threads running shard writers (0 = one per core)
 * @param ringEvents          per shard: recent events kept in memory for resume and catch-up
 * @param ringBytes           per shard: payload bytes kept in memory for resume and catch-up
 * @param writerQueue         per shard: publishes waiting for the shard's writer (checkpoint
 *                            {@code writer_queue}); when full, the broker stops reading the publishers'
 *                            streams (they are slowed by QUIC flow control) or answers
 *                            {@code overloaded}, depending on the ingress policy
 * @param subscriberQueue     default per-subscriber queue limits (checkpoint {@code subscriber_queue})
 * @param ephemeralPolicy     default subscriber queue policy on ephemeral streams
 * @param durablePolicy       default subscriber queue policy on durable streams
 * @param maxBatchEvents      largest batch a shard writer forms by merging queued publishes
 * @param maxBatchBytes       payload bytes of the largest merged batch
 * @param autoCreate          create tenants, namespaces and ephemeral streams on first use
 */
public record CoreConfig(
        int shardThreads,
        int ringEvents,
        long ringBytes,
        QueueLimits writerQueue,
        QueueLimits subscriberQueue,
        QueuePolicy ephemeralPolicy,
        QueuePolicy durablePolicy,
        int maxBatchEvents,
        long maxBatchBytes,
        boolean autoCreate) {

    public CoreConfig {
        if (shardThreads < 0) {
            throw new IllegalArgumentException("shard_threads must be >= 0, was " + shardThreads);
        }
        if (ringEvents < 1 || ringBytes < 1) {
            throw new IllegalArgumentException("ring_events and ring_bytes must be positive");
        }
        if (maxBatchEvents < 1 || maxBatchBytes < 1) {
            throw new IllegalArgumentException("max_batch_events and max_batch_bytes must be positive");
        }
        if (ephemeralPolicy == QueuePolicy.CATCH_UP) {
            throw new IllegalArgumentException("catch_up needs a log: it is only valid for durable streams");
        }
    }

    public static CoreConfig defaults() {
        return new CoreConfig(
                0,
                65_536,
                64L << 20,
                new QueueLimits(16_384, 32L << 20),
                new QueueLimits(8_192, 16L << 20),
                QueuePolicy.DROP_NEW,
                QueuePolicy.CATCH_UP,
                256,
                256L << 10,
                true);
    }

    public CoreConfig withAutoCreate(boolean value) {
        return new CoreConfig(shardThreads, ringEvents, ringBytes, writerQueue, subscriberQueue, ephemeralPolicy,
                durablePolicy, maxBatchEvents, maxBatchBytes, value);
    }

    public CoreConfig withSubscriberQueue(QueueLimits limits, QueuePolicy ephemeral) {
        return new CoreConfig(shardThreads, ringEvents, ringBytes, writerQueue, limits, ephemeral,
                durablePolicy, maxBatchEvents, maxBatchBytes, autoCreate);
    }

    public CoreConfig withWriterQueue(QueueLimits limits) {
        return new CoreConfig(shardThreads, ringEvents, ringBytes, limits, subscriberQueue, ephemeralPolicy,
                durablePolicy, maxBatchEvents, maxBatchBytes, autoCreate);
    }

    public CoreConfig withRing(int events, long bytes) {
        return new CoreConfig(shardThreads, events, bytes, writerQueue, subscriberQueue, ephemeralPolicy,
                durablePolicy, maxBatchEvents, maxBatchBytes, autoCreate);
    }

    public CoreConfig withShardThreads(int threads) {
        return new CoreConfig(threads, ringEvents, ringBytes, writerQueue, subscriberQueue, ephemeralPolicy,
                durablePolicy, maxBatchEvents, maxBatchBytes, autoCreate);
    }
}
