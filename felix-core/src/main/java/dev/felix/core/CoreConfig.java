package dev.felix.core;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Settings of the broker core. Immutable and thread-safe; its {@link Builder} is for one thread.
 *
 * <p>Build with {@link #builder()}; every default is a {@code DEFAULT_*} constant below and every option checks
 * its value at the call, with an {@link IllegalArgumentException} naming the setting (as {@code felix server}
 * spells it) and the bad value. The canonical constructor applies the same checks.
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
 * @param inlineWriters       run a shard's writer on the thread that hands it work when that thread allows it
 *                            ({@link dev.felix.core.writer.WriterLoop#allowInlineOnThisThread()}; a broker's QUIC
 *                            event loops do) instead of the {@code shardThreads} pool: no thread hop on the
 *                            publish path, at the cost of doing fanout on the network thread. Every other thread
 *                            hands the writer to the pool either way, and so does a shard with more than
 *                            {@link #INLINE_MAX_SUBSCRIBERS} subscribers.
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

    /** Default shard writer threads: 0, one per core. */
    public static final int DEFAULT_SHARD_THREADS = 0;
    /** Default per-shard ring: 65,536 events. */
    public static final int DEFAULT_RING_EVENTS = 65_536;
    /** Default per-shard ring: 64 MiB of payload. */
    public static final long DEFAULT_RING_BYTES = 64L << 20;
    /** Default per-shard writer queue: 16,384 publishes / 32 MiB. */
    public static final QueueLimits DEFAULT_WRITER_QUEUE = new QueueLimits(16_384, 32L << 20);
    /** Default per-subscriber queue: 8,192 events / 16 MiB. */
    public static final QueueLimits DEFAULT_SUBSCRIBER_QUEUE = new QueueLimits(8_192, 16L << 20);
    /** Default subscriber queue policy on ephemeral streams: {@code drop_new}. */
    public static final QueuePolicy DEFAULT_EPHEMERAL_POLICY = QueuePolicy.DROP_NEW;
    /** Default subscriber queue policy on durable streams: {@code catch_up}. */
    public static final QueuePolicy DEFAULT_DURABLE_POLICY = QueuePolicy.CATCH_UP;
    /** Default largest merged batch: 256 events. */
    public static final int DEFAULT_MAX_BATCH_EVENTS = 256;
    /** Default largest merged batch: 256 KiB of payload. */
    public static final long DEFAULT_MAX_BATCH_BYTES = 256L << 10;
    /** Default: create tenants, namespaces and ephemeral streams on first use. */
    public static final boolean DEFAULT_AUTO_CREATE = true;
    /** Default: any tenant may hold streams and caches. */
    public static final boolean DEFAULT_OPEN_TENANTS = true;
    /** Default: shard writers run inline on threads that allow it (a broker's QUIC event loops), else on the pool. */
    public static final boolean DEFAULT_INLINE_WRITERS = true;
    /**
     * With {@code inlineWriters}: a shard with more subscribers than this hands its writer to the pool even on an
     * event loop. Measured (docs/benchmarks.md, "Fewer thread hand-offs"): inline halves the hand-offs at fanout 1
     * and 10, but at 10,000 subscribers one event loop doing both the fanout and every connection's writes fell
     * seconds behind where the pool beside it kept p50 at 26 ms.
     */
    public static final int INLINE_MAX_SUBSCRIBERS = 64;

    private static final CoreConfig DEFAULTS = builder().build();

    /**
     * Durable storage settings. Immutable; build with {@link #builder(Path)} (or {@link #at(Path)} for every
     * default). Each option checks its value at the call; so does the canonical constructor.
     *
     * @param dataDir            root directory: stream definitions under {@code streams/}, logs under
     *                           {@code logs/}
     * @param segmentBytes       log segment size before rolling to a new one
     * @param repairCorruptTail  at open, cut a corrupted last record of a log instead of refusing the log
     * @param flushThreads       threads that run group-committed fsyncs for every log of the node
     * @param retentionCheck     how often a log with retention deletes segments past its bounds
     */
    public record Storage(Path dataDir, long segmentBytes, boolean repairCorruptTail, int flushThreads,
            Duration retentionCheck) {
        /** Default log segment size: 256 MiB. */
        public static final long DEFAULT_SEGMENT_BYTES = 256L << 20;
        /** Smallest log segment size: 4 KiB. */
        public static final long MIN_SEGMENT_BYTES = 4096;
        /** Default: a corrupted last record makes the log refuse to open. */
        public static final boolean DEFAULT_REPAIR_CORRUPT_TAIL = false;
        /** Default flush threads: 4. */
        public static final int DEFAULT_FLUSH_THREADS = 4;
        /** Most flush threads: 256. */
        public static final int MAX_FLUSH_THREADS = 256;
        /** Default retention check interval: 1 minute. */
        public static final Duration DEFAULT_RETENTION_CHECK = Duration.ofMinutes(1);

        public Storage {
            required("data_dir", dataDir);
            checkSegmentBytes(segmentBytes);
            checkFlushThreads(flushThreads);
            checkRetentionCheck(retentionCheck);
        }

        /** 256 MiB segments, no tail repair, 4 flush threads, retention checked every minute. */
        public static Storage at(Path dataDir) {
            return builder(dataDir).build();
        }

        /** A builder for storage under {@code dataDir}, holding every other default. */
        public static Builder builder(Path dataDir) {
            return new Builder(required("data_dir", dataDir));
        }

        /** A builder starting from these settings. */
        public Builder toBuilder() {
            return builder(dataDir).segmentBytes(segmentBytes).repairCorruptTail(repairCorruptTail)
                    .flushThreads(flushThreads).retentionCheck(retentionCheck);
        }

        private static long checkSegmentBytes(long bytes) {
            if (bytes < MIN_SEGMENT_BYTES) {
                throw new IllegalArgumentException("segment_bytes must be at least " + MIN_SEGMENT_BYTES + ", was "
                        + bytes);
            }
            return bytes;
        }

        private static int checkFlushThreads(int threads) {
            if (threads < 1 || threads > MAX_FLUSH_THREADS) {
                throw new IllegalArgumentException("storage_flush_threads must be within [1, " + MAX_FLUSH_THREADS
                        + "], was " + threads);
            }
            return threads;
        }

        private static Duration checkRetentionCheck(Duration interval) {
            if (interval == null || interval.isZero() || interval.isNegative()) {
                throw new IllegalArgumentException("retention_check must be positive, was " + interval);
            }
            return interval;
        }

        /** Builds {@link Storage}; each option checks its value at the call. Not thread-safe. */
        public static final class Builder {
            private final Path dataDir;
            private long segmentBytes = DEFAULT_SEGMENT_BYTES;
            private boolean repairCorruptTail = DEFAULT_REPAIR_CORRUPT_TAIL;
            private int flushThreads = DEFAULT_FLUSH_THREADS;
            private Duration retentionCheck = DEFAULT_RETENTION_CHECK;

            private Builder(Path dataDir) {
                this.dataDir = dataDir;
            }

            /** Log segment size in bytes before rolling, &ge; 4 KiB; default 256 MiB. */
            public Builder segmentBytes(long bytes) {
                this.segmentBytes = checkSegmentBytes(bytes);
                return this;
            }

            /** At open, cut a corrupted last record instead of refusing the log; default false. */
            public Builder repairCorruptTail(boolean value) {
                this.repairCorruptTail = value;
                return this;
            }

            /** Threads running group-committed fsyncs for every log, 1..256; default 4. */
            public Builder flushThreads(int threads) {
                this.flushThreads = checkFlushThreads(threads);
                return this;
            }

            /** How often retention runs on a log with bounds, positive; default 1 minute. */
            public Builder retentionCheck(Duration interval) {
                this.retentionCheck = checkRetentionCheck(interval);
                return this;
            }

            public Storage build() {
                return new Storage(dataDir, segmentBytes, repairCorruptTail, flushThreads, retentionCheck);
            }
        }
    }

    public CoreConfig {
        checkShardThreads(shardThreads);
        checkPositive("ring_events", ringEvents);
        checkPositive("ring_bytes", ringBytes);
        required("writer_queue", writerQueue);
        required("subscriber_queue", subscriberQueue);
        checkEphemeralPolicy(ephemeralPolicy);
        required("durable_policy", durablePolicy);
        checkPositive("max_batch_events", maxBatchEvents);
        checkPositive("max_batch_bytes", maxBatchBytes);
    }

    /** Every default; no storage (no durable streams). */
    public static CoreConfig defaults() {
        return DEFAULTS;
    }

    /** A builder holding every default. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.shardThreads = shardThreads;
        b.ringEvents = ringEvents;
        b.ringBytes = ringBytes;
        b.writerQueue = writerQueue;
        b.subscriberQueue = subscriberQueue;
        b.ephemeralPolicy = ephemeralPolicy;
        b.durablePolicy = durablePolicy;
        b.maxBatchEvents = maxBatchEvents;
        b.maxBatchBytes = maxBatchBytes;
        b.autoCreate = autoCreate;
        b.openTenants = openTenants;
        b.inlineWriters = inlineWriters;
        b.storage = storage;
        return b;
    }

    // The with* methods are shorthands for toBuilder().x(value).build(), kept for the tests that change one value.

    public CoreConfig withAutoCreate(boolean value) {
        return toBuilder().autoCreate(value).build();
    }

    public CoreConfig withOpenTenants(boolean value) {
        return toBuilder().openTenants(value).build();
    }

    public CoreConfig withSubscriberQueue(QueueLimits limits, QueuePolicy ephemeral) {
        return toBuilder().subscriberQueue(limits).ephemeralPolicy(ephemeral).build();
    }

    public CoreConfig withWriterQueue(QueueLimits limits) {
        return toBuilder().writerQueue(limits).build();
    }

    public CoreConfig withRing(int events, long bytes) {
        return toBuilder().ringEvents(events).ringBytes(bytes).build();
    }

    public CoreConfig withShardThreads(int threads) {
        return toBuilder().shardThreads(threads).build();
    }

    public CoreConfig withInlineWriters(boolean value) {
        return toBuilder().inlineWriters(value).build();
    }

    public CoreConfig withStorage(Storage value) {
        return toBuilder().storage(value).build();
    }

    private static int checkShardThreads(int threads) {
        if (threads < 0) {
            throw new IllegalArgumentException("shard_threads must be >= 0 (0 = one per core), was " + threads);
        }
        return threads;
    }

    private static long checkPositive(String option, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(option + " must be positive, was " + value);
        }
        return value;
    }

    private static QueuePolicy checkEphemeralPolicy(QueuePolicy policy) {
        required("subscriber_queue_policy", policy);
        if (policy == QueuePolicy.CATCH_UP) {
            throw new IllegalArgumentException("subscriber_queue_policy catch_up needs a log: it is only valid for"
                    + " durable streams (use block, drop_new or drop_old)");
        }
        return policy;
    }

    private static <T> T required(String option, T value) {
        if (value == null) {
            throw new IllegalArgumentException(option + " must not be null");
        }
        return value;
    }

    /** Builds a {@link CoreConfig}; each option checks its value at the call. Not thread-safe. */
    public static final class Builder {
        private int shardThreads = DEFAULT_SHARD_THREADS;
        private int ringEvents = DEFAULT_RING_EVENTS;
        private long ringBytes = DEFAULT_RING_BYTES;
        private QueueLimits writerQueue = DEFAULT_WRITER_QUEUE;
        private QueueLimits subscriberQueue = DEFAULT_SUBSCRIBER_QUEUE;
        private QueuePolicy ephemeralPolicy = DEFAULT_EPHEMERAL_POLICY;
        private QueuePolicy durablePolicy = DEFAULT_DURABLE_POLICY;
        private int maxBatchEvents = DEFAULT_MAX_BATCH_EVENTS;
        private long maxBatchBytes = DEFAULT_MAX_BATCH_BYTES;
        private boolean autoCreate = DEFAULT_AUTO_CREATE;
        private boolean openTenants = DEFAULT_OPEN_TENANTS;
        private boolean inlineWriters = DEFAULT_INLINE_WRITERS;
        private Storage storage;

        private Builder() {
        }

        /** Threads running shard writers, &ge; 0; default 0 (one per core). */
        public Builder shardThreads(int threads) {
            this.shardThreads = checkShardThreads(threads);
            return this;
        }

        /** Per shard: recent events kept in memory for resume and catch-up, &ge; 1; default 65,536. */
        public Builder ringEvents(int events) {
            this.ringEvents = (int) checkPositive("ring_events", events);
            return this;
        }

        /** Per shard: payload bytes kept in memory for resume and catch-up, &ge; 1; default 64 MiB. */
        public Builder ringBytes(long bytes) {
            this.ringBytes = checkPositive("ring_bytes", bytes);
            return this;
        }

        /** Per shard: publishes waiting for the writer (checkpoint {@code writer_queue}); default 16,384 / 32 MiB. */
        public Builder writerQueue(QueueLimits limits) {
            this.writerQueue = required("writer_queue", limits);
            return this;
        }

        /** Default per-subscriber queue (checkpoint {@code subscriber_queue}); default 8,192 / 16 MiB. */
        public Builder subscriberQueue(QueueLimits limits) {
            this.subscriberQueue = required("subscriber_queue", limits);
            return this;
        }

        /** Subscriber queue policy on ephemeral streams, not {@code catch_up}; default {@code drop_new}. */
        public Builder ephemeralPolicy(QueuePolicy policy) {
            this.ephemeralPolicy = checkEphemeralPolicy(policy);
            return this;
        }

        /** Subscriber queue policy on durable streams; default {@code catch_up}. */
        public Builder durablePolicy(QueuePolicy policy) {
            this.durablePolicy = required("durable_policy", policy);
            return this;
        }

        /** Largest batch a shard writer forms by merging queued publishes, &ge; 1; default 256 events. */
        public Builder maxBatchEvents(int events) {
            this.maxBatchEvents = (int) checkPositive("max_batch_events", events);
            return this;
        }

        /** Payload bytes of the largest merged batch, &ge; 1; default 256 KiB. */
        public Builder maxBatchBytes(long bytes) {
            this.maxBatchBytes = checkPositive("max_batch_bytes", bytes);
            return this;
        }

        /** Create tenants, namespaces and ephemeral streams on first use; default true. */
        public Builder autoCreate(boolean value) {
            this.autoCreate = value;
            return this;
        }

        /** A stream or cache in an unregistered tenant registers it; default true. */
        public Builder openTenants(boolean value) {
            this.openTenants = value;
            return this;
        }

        /** Run shard writers on the thread that hands them work instead of the pool; default false. */
        public Builder inlineWriters(boolean value) {
            this.inlineWriters = value;
            return this;
        }

        /** Where durable streams keep their logs; null (the default) = no durable streams. */
        public Builder storage(Storage value) {
            this.storage = value;
            return this;
        }

        public CoreConfig build() {
            return new CoreConfig(shardThreads, ringEvents, ringBytes, writerQueue, subscriberQueue, ephemeralPolicy,
                    durablePolicy, maxBatchEvents, maxBatchBytes, autoCreate, openTenants, inlineWriters, storage);
        }
    }
}
