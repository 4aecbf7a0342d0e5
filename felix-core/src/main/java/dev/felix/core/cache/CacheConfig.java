package dev.felix.core.cache;

import dev.felix.core.Consistency;
import dev.felix.core.QueueLimits;
import dev.felix.core.StreamConfig;
import java.time.Duration;
import java.util.Locale;

/**
 * The guarantees and limits a cache declares. Immutable and thread-safe; its {@link Builder} is for one thread.
 *
 * <p>Build with {@link #builder()}; every option checks its value at the call, and the canonical constructor
 * applies the same checks (so a definition read from disk or the wire is held to the same rules). A bad value
 * throws {@link IllegalArgumentException} naming the setting as the wire and the CLI spell it. Defaults
 * ({@link #defaults()}, each a {@code DEFAULT_*} constant):
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code backing}</td><td>{@code memory}</td><td>{@link Backing}</td></tr>
 *   <tr><td>{@code defaultTtl}</td><td>none</td><td>TTL of a put that names none (null = never expires)</td></tr>
 *   <tr><td>{@code maxEntries}</td><td>1,000,000</td><td>capacity; beyond it the least recently used entry is
 *       evicted (an {@link Change.Op#EVICT} change)</td></tr>
 *   <tr><td>{@code changeRingEvents} / {@code changeRingBytes}</td><td>65,536 / 64 MiB</td><td>recent changes
 *       kept in memory for resume; for a memory cache this is all the history there is</td></tr>
 *   <tr><td>{@code watcherQueue}</td><td>8,192 changes / 16 MiB</td><td>each watcher's bounded queue; overflow
 *       ends the watch with the offset to resume from</td></tr>
 *   <tr><td>{@code writerQueue}</td><td>16,384 / 64 MiB</td><td>mutations waiting for the writer; when full a
 *       put or delete fails with {@code overloaded}</td></tr>
 *   <tr><td>{@code maxValueBytes}</td><td>1 MiB</td><td>largest value; larger puts fail with
 *       {@code bad_request}</td></tr>
 *   <tr><td>{@code fsync}</td><td>{@code periodic}</td><td>log caches: when the log is forced to disk; a put or
 *       delete is acknowledged only after that under {@code on_commit}</td></tr>
 *   <tr><td>{@code snapshotEveryChanges}</td><td>100,000</td><td>log caches: write a snapshot and compact the
 *       log after this many changes</td></tr>
 *   <tr><td>{@code segmentBytes}</td><td>16 MiB</td><td>log caches: log segment size (compaction drops whole
 *       segments)</td></tr>
 *   <tr><td>{@code consistency}</td><td>{@code leader}</td><td>log caches in a cluster: a change is acknowledged
 *       and visible once the leader holds it ({@code leader}) or a majority of its replicas do
 *       ({@code quorum}), exactly as for a durable stream shard; a single node ignores {@code leader} and
 *       refuses {@code quorum}. A memory cache is always {@code leader} (it lives on one node)</td></tr>
 * </table>
 */
public record CacheConfig(
        Backing backing,
        Duration defaultTtl,
        int maxEntries,
        int changeRingEvents,
        long changeRingBytes,
        QueueLimits watcherQueue,
        QueueLimits writerQueue,
        int maxValueBytes,
        StreamConfig.Fsync fsync,
        long snapshotEveryChanges,
        long segmentBytes,
        Consistency consistency) {

    /** Largest {@code maxValueBytes}: 64 MiB (one log record must hold a value and its key). */
    public static final int MAX_VALUE_LIMIT = 64 << 20;
    /** Smallest {@code segmentBytes} of a log cache. */
    public static final long MIN_SEGMENT_BYTES = 4096;
    /** Default backing: {@code memory}. */
    public static final Backing DEFAULT_BACKING = Backing.MEMORY;
    /** Default capacity: 1,000,000 entries. */
    public static final int DEFAULT_MAX_ENTRIES = 1_000_000;
    /** Default change ring: 65,536 changes. */
    public static final int DEFAULT_CHANGE_RING_EVENTS = 65_536;
    /** Default change ring: 64 MiB. */
    public static final long DEFAULT_CHANGE_RING_BYTES = 64L << 20;
    /** Default per-watcher queue: 8,192 changes / 16 MiB. */
    public static final QueueLimits DEFAULT_WATCHER_QUEUE = new QueueLimits(8_192, 16L << 20);
    /** Default writer queue: 16,384 mutations / 64 MiB. */
    public static final QueueLimits DEFAULT_WRITER_QUEUE = new QueueLimits(16_384, 64L << 20);
    /** Default largest value: 1 MiB. */
    public static final int DEFAULT_MAX_VALUE_BYTES = 1 << 20;
    /** Default fsync policy of a log cache: {@code periodic}. */
    public static final StreamConfig.Fsync DEFAULT_FSYNC = StreamConfig.Fsync.PERIODIC;
    /** Default snapshot interval of a log cache: every 100,000 changes. */
    public static final long DEFAULT_SNAPSHOT_EVERY_CHANGES = 100_000;
    /** Default log segment size of a log cache: 16 MiB. */
    public static final long DEFAULT_SEGMENT_BYTES = 16L << 20;
    /** Default consistency: {@code leader}. */
    public static final Consistency DEFAULT_CONSISTENCY = Consistency.LEADER;

    private static final CacheConfig DEFAULTS = builder().build();

    /** Where a cache keeps its state. */
    public enum Backing {
        /** In memory only: lost on restart (the cache comes back empty with a new incarnation). */
        MEMORY,
        /**
         * Every change is appended to a durable log, compacted by periodic snapshots; the cache survives a
         * restart with every acknowledged put and delete.
         */
        LOG;

        private final String wireName = name().toLowerCase(Locale.ROOT);

        public String wireName() {
            return wireName;
        }

        public static Backing parse(String name) {
            for (Backing b : values()) {
                if (b.wireName.equals(name)) {
                    return b;
                }
            }
            throw new IllegalArgumentException("unknown cache backing '" + name + "'; expected memory or log");
        }
    }

    public CacheConfig {
        if (backing == null) {
            throw new IllegalArgumentException("backing must be set (memory or log)");
        }
        checkTtl(defaultTtl);
        checkPositive("max_entries", maxEntries);
        checkPositive("change_ring_events", changeRingEvents);
        checkPositive("change_ring_bytes", changeRingBytes);
        if (watcherQueue == null) {
            throw new IllegalArgumentException("watcher_queue must be set");
        }
        if (writerQueue == null) {
            throw new IllegalArgumentException("writer_queue must be set");
        }
        checkMaxValueBytes(maxValueBytes);
        if (fsync == null) {
            fsync = DEFAULT_FSYNC;
        }
        checkPositive("snapshot_every_changes", snapshotEveryChanges);
        checkSegmentBytes(segmentBytes);
        if (consistency == null) {
            consistency = DEFAULT_CONSISTENCY;
        }
        if (consistency == Consistency.QUORUM && backing != Backing.LOG) {
            throw new IllegalArgumentException("consistency quorum needs a log cache: a memory cache lives on one"
                    + " node and has nothing to replicate");
        }
    }

    /** As the canonical constructor, with the default consistency ({@code leader}). */
    public CacheConfig(Backing backing, Duration defaultTtl, int maxEntries, int changeRingEvents,
            long changeRingBytes, QueueLimits watcherQueue, QueueLimits writerQueue, int maxValueBytes,
            StreamConfig.Fsync fsync, long snapshotEveryChanges, long segmentBytes) {
        this(backing, defaultTtl, maxEntries, changeRingEvents, changeRingBytes, watcherQueue, writerQueue,
                maxValueBytes, fsync, snapshotEveryChanges, segmentBytes, DEFAULT_CONSISTENCY);
    }

    /** A memory cache with every default. */
    public static CacheConfig defaults() {
        return DEFAULTS;
    }

    /** A memory cache with every default. */
    public static CacheConfig memory() {
        return DEFAULTS;
    }

    /** A log cache with {@code fsync} and every other default. */
    public static CacheConfig log(StreamConfig.Fsync fsync) {
        return builder().backing(Backing.LOG).fsync(fsync).build();
    }

    /** A builder holding every default. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.backing = backing;
        b.defaultTtl = defaultTtl;
        b.maxEntries = maxEntries;
        b.changeRingEvents = changeRingEvents;
        b.changeRingBytes = changeRingBytes;
        b.watcherQueue = watcherQueue;
        b.writerQueue = writerQueue;
        b.maxValueBytes = maxValueBytes;
        b.fsync = fsync;
        b.snapshotEveryChanges = snapshotEveryChanges;
        b.segmentBytes = segmentBytes;
        b.consistency = consistency;
        return b;
    }

    // The with* methods are shorthands for toBuilder().x(value).build(), kept for the many tests that change one value.

    public CacheConfig withBacking(Backing value) {
        return toBuilder().backing(value).build();
    }

    public CacheConfig withDefaultTtl(Duration value) {
        return toBuilder().defaultTtl(value).build();
    }

    public CacheConfig withMaxEntries(int value) {
        return toBuilder().maxEntries(value).build();
    }

    public CacheConfig withChangeRing(int events, long bytes) {
        return toBuilder().changeRingEvents(events).changeRingBytes(bytes).build();
    }

    public CacheConfig withWatcherQueue(QueueLimits value) {
        return toBuilder().watcherQueue(value).build();
    }

    public CacheConfig withWriterQueue(QueueLimits value) {
        return toBuilder().writerQueue(value).build();
    }

    public CacheConfig withMaxValueBytes(int value) {
        return toBuilder().maxValueBytes(value).build();
    }

    public CacheConfig withFsync(StreamConfig.Fsync value) {
        return toBuilder().fsync(value).build();
    }

    public CacheConfig withSnapshotEveryChanges(long value) {
        return toBuilder().snapshotEveryChanges(value).build();
    }

    public CacheConfig withSegmentBytes(long value) {
        return toBuilder().segmentBytes(value).build();
    }

    private static Duration checkTtl(Duration ttl) {
        if (ttl != null && (ttl.isZero() || ttl.isNegative())) {
            throw new IllegalArgumentException("default_ttl must be positive (or unset), was " + ttl);
        }
        if (ttl != null && ttl.toMillis() < 1) {
            throw new IllegalArgumentException("default_ttl must be at least 1 ms, was " + ttl);
        }
        return ttl;
    }

    private static long checkPositive(String option, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(option + " must be positive, was " + value);
        }
        return value;
    }

    private static int checkMaxValueBytes(int bytes) {
        if (bytes < 0 || bytes > MAX_VALUE_LIMIT) {
            throw new IllegalArgumentException("max_value_bytes must be within [0, " + MAX_VALUE_LIMIT + "], was "
                    + bytes);
        }
        return bytes;
    }

    private static long checkSegmentBytes(long bytes) {
        if (bytes < MIN_SEGMENT_BYTES) {
            throw new IllegalArgumentException("segment_bytes must be at least " + MIN_SEGMENT_BYTES + ", was "
                    + bytes);
        }
        return bytes;
    }

    private static <T> T required(String option, T value) {
        if (value == null) {
            throw new IllegalArgumentException(option + " must not be null");
        }
        return value;
    }

    /** Builds a {@link CacheConfig}; each option checks its value at the call. Not thread-safe. */
    public static final class Builder {
        private Backing backing = DEFAULT_BACKING;
        private Duration defaultTtl;
        private int maxEntries = DEFAULT_MAX_ENTRIES;
        private int changeRingEvents = DEFAULT_CHANGE_RING_EVENTS;
        private long changeRingBytes = DEFAULT_CHANGE_RING_BYTES;
        private QueueLimits watcherQueue = DEFAULT_WATCHER_QUEUE;
        private QueueLimits writerQueue = DEFAULT_WRITER_QUEUE;
        private int maxValueBytes = DEFAULT_MAX_VALUE_BYTES;
        private StreamConfig.Fsync fsync = DEFAULT_FSYNC;
        private long snapshotEveryChanges = DEFAULT_SNAPSHOT_EVERY_CHANGES;
        private long segmentBytes = DEFAULT_SEGMENT_BYTES;
        private Consistency consistency = DEFAULT_CONSISTENCY;

        private Builder() {
        }

        /** Where the cache keeps its state; default {@code memory}. */
        public Builder backing(Backing value) {
            this.backing = required("backing", value);
            return this;
        }

        /** TTL of a put that names none, at least 1 ms; null (the default) = entries never expire. */
        public Builder defaultTtl(Duration ttl) {
            this.defaultTtl = checkTtl(ttl);
            return this;
        }

        /** Capacity in entries, &ge; 1, beyond which the least recently used is evicted; default 1,000,000. */
        public Builder maxEntries(int entries) {
            this.maxEntries = (int) checkPositive("max_entries", entries);
            return this;
        }

        /** Recent changes kept in memory for resume, &ge; 1; default 65,536. */
        public Builder changeRingEvents(int events) {
            this.changeRingEvents = (int) checkPositive("change_ring_events", events);
            return this;
        }

        /** Bytes of recent changes kept in memory for resume, &ge; 1; default 64 MiB. */
        public Builder changeRingBytes(long bytes) {
            this.changeRingBytes = checkPositive("change_ring_bytes", bytes);
            return this;
        }

        /** Each watcher's queue; overflow ends the watch with the offset to resume from. Default 8,192 / 16 MiB. */
        public Builder watcherQueue(QueueLimits limits) {
            this.watcherQueue = required("watcher_queue", limits);
            return this;
        }

        /** Mutations waiting for the writer; when full a put fails with {@code overloaded}. Default 16,384 / 64 MiB. */
        public Builder writerQueue(QueueLimits limits) {
            this.writerQueue = required("writer_queue", limits);
            return this;
        }

        /** Largest value in bytes, 0..{@value CacheConfig#MAX_VALUE_LIMIT}; default 1 MiB. */
        public Builder maxValueBytes(int bytes) {
            this.maxValueBytes = checkMaxValueBytes(bytes);
            return this;
        }

        /** Log caches: when the log is forced to disk; default {@code periodic} (null also means the default). */
        public Builder fsync(StreamConfig.Fsync value) {
            this.fsync = value != null ? value : DEFAULT_FSYNC;
            return this;
        }

        /** Log caches: snapshot and compact after this many changes, &ge; 1; default 100,000. */
        public Builder snapshotEveryChanges(long changes) {
            this.snapshotEveryChanges = checkPositive("snapshot_every_changes", changes);
            return this;
        }

        /** Log caches: log segment size in bytes, &ge; {@value CacheConfig#MIN_SEGMENT_BYTES}; default 16 MiB. */
        public Builder segmentBytes(long bytes) {
            this.segmentBytes = checkSegmentBytes(bytes);
            return this;
        }

        /**
         * Log caches in a cluster: {@code leader} (the default; null also means it) or {@code quorum}. Checked
         * against the backing at {@link #build}: quorum needs a log cache.
         */
        public Builder consistency(Consistency value) {
            this.consistency = value != null ? value : DEFAULT_CONSISTENCY;
            return this;
        }

        public CacheConfig build() {
            return new CacheConfig(backing, defaultTtl, maxEntries, changeRingEvents, changeRingBytes, watcherQueue,
                    writerQueue, maxValueBytes, fsync, snapshotEveryChanges, segmentBytes, consistency);
        }
    }
}
