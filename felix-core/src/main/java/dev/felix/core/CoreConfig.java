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
 * @param openTenants         creating a stream or cache in a tenant nobody registered registers it (a node whose
 *                            authentication accepts any tenant); off, only registered tenants (those its
 *                            authentication names) can hold streams and caches
 * @param inlineWriters       run a shard's writer on the thread that hands it work (in a broker: the
 *                            QUIC event loop) instead of the {@code shardThreads} pool: no thread hop on
 *                            the publish path, at the cost of doing fanout on the network thread
 * @param storage             where durable streams keep their logs; null = no durable streams
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
        boolean autoCreate,
        boolean openTenants,
        boolean inlineWriters,
        Storage storage) {

    /**
     * Durable storage settings.
     *
     * @param dataDir            root directory: stream definitions under {@code streams/}, logs under
     *                           {@code logs/}
     * @param segmentBytes       log segment size before rolling to a new one
     * @param repairCorruptTail  at open, cut a corrupted last record of a log instead of refusing the log
     * @param flushThreads       threads that run group-committed fsyncs for every log of the node
     * @param retentionCheck     how often a log with retention deletes segments past its bounds
     */
    public record Storage(java.nio.file.Path dataDir, long segmentBytes, boolean repairCorruptTail, int flushThreads,
            java.time.Duration retentionCheck) {
        /** 256 MiB segments, no tail repair, 4 flush threads, retention checked every minute. */
        public static Storage at(java.nio.file.Path dataDir) {
            return new Storage(dataDir, 256L << 20, false, 4, java.time.Duration.ofMinutes(1));
        }
    }

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
                true,
                true,
                false,
                null);
    }

    public CoreConfig withAutoCreate(boolean value) {
        return new CoreConfig(shardThreads, ringEvents, ringBytes, writerQueue, subscriberQueue, ephemeralPolicy,
                durablePolicy, maxBatchEvents, maxBatchBytes, value, openTenants, inlineWriters, storage);
    }

    public CoreConfig withOpenTenants(boolean value) {
        return new CoreConfig(shardThreads, ringEvents, ringBytes, writerQueue, subscriberQueue, ephemeralPolicy,
                durablePolicy, maxBatchEvents, maxBatchBytes, autoCreate, value, inlineWriters, storage);
    }

    public CoreConfig withSubscriberQueue(QueueLimits limits, QueuePolicy ephemeral) {
        return new CoreConfig(shardThreads, ringEvents, ringBytes, writerQueue, limits, ephemeral,
                durablePolicy, maxBatchEvents, maxBatchBytes, autoCreate, openTenants, inlineWriters, storage);
    }

    public CoreConfig withWriterQueue(QueueLimits limits) {
        return new CoreConfig(shardThreads, ringEvents, ringBytes, limits, subscriberQueue, ephemeralPolicy,
                durablePolicy, maxBatchEvents, maxBatchBytes, autoCreate, openTenants, inlineWriters, storage);
    }

    public CoreConfig withRing(int events, long bytes) {
        return new CoreConfig(shardThreads, events, bytes, writerQueue, subscriberQueue, ephemeralPolicy,
                durablePolicy, maxBatchEvents, maxBatchBytes, autoCreate, openTenants, inlineWriters, storage);
    }

    public CoreConfig withShardThreads(int threads) {
        return new CoreConfig(threads, ringEvents, ringBytes, writerQueue, subscriberQueue, ephemeralPolicy,
                durablePolicy, maxBatchEvents, maxBatchBytes, autoCreate, openTenants, inlineWriters, storage);
    }

    public CoreConfig withInlineWriters(boolean value) {
        return new CoreConfig(shardThreads, ringEvents, ringBytes, writerQueue, subscriberQueue, ephemeralPolicy,
                durablePolicy, maxBatchEvents, maxBatchBytes, autoCreate, openTenants, value, storage);
    }

    public CoreConfig withStorage(Storage value) {
        return new CoreConfig(shardThreads, ringEvents, ringBytes, writerQueue, subscriberQueue, ephemeralPolicy,
                durablePolicy, maxBatchEvents, maxBatchBytes, autoCreate, openTenants, inlineWriters, value);
    }
}
