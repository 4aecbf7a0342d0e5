package dev.felix.core.cache;

import dev.felix.core.QueueLimits;
import dev.felix.core.StreamConfig;
import java.time.Duration;
import java.util.Locale;

/**
 * The guarantees and limits a cache declares. Every value is checked here; a bad one throws
 * {@link IllegalArgumentException} naming the setting. Defaults ({@link #defaults()}):
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
        long segmentBytes) {

    /** Largest {@code maxValueBytes}: 64 MiB (one log record must hold a value and its key). */
    public static final int MAX_VALUE_LIMIT = 64 << 20;
    /** Smallest {@code segmentBytes} of a log cache. */
    public static final long MIN_SEGMENT_BYTES = 4096;

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
        if (defaultTtl != null && (defaultTtl.isZero() || defaultTtl.isNegative())) {
            throw new IllegalArgumentException("default_ttl must be positive (or unset), was " + defaultTtl);
        }
        if (defaultTtl != null && defaultTtl.toMillis() < 1) {
            throw new IllegalArgumentException("default_ttl must be at least 1 ms, was " + defaultTtl);
        }
        if (maxEntries < 1) {
            throw new IllegalArgumentException("max_entries must be positive, was " + maxEntries);
        }
        if (changeRingEvents < 1) {
            throw new IllegalArgumentException("change_ring_events must be positive, was " + changeRingEvents);
        }
        if (changeRingBytes < 1) {
            throw new IllegalArgumentException("change_ring_bytes must be positive, was " + changeRingBytes);
        }
        if (watcherQueue == null) {
            throw new IllegalArgumentException("watcher_queue must be set");
        }
        if (writerQueue == null) {
            throw new IllegalArgumentException("writer_queue must be set");
        }
        if (maxValueBytes < 0 || maxValueBytes > MAX_VALUE_LIMIT) {
            throw new IllegalArgumentException("max_value_bytes must be within [0, " + MAX_VALUE_LIMIT + "], was "
                    + maxValueBytes);
        }
        if (fsync == null) {
            fsync = StreamConfig.Fsync.PERIODIC;
        }
        if (snapshotEveryChanges < 1) {
            throw new IllegalArgumentException("snapshot_every_changes must be positive, was " + snapshotEveryChanges);
        }
        if (segmentBytes < MIN_SEGMENT_BYTES) {
            throw new IllegalArgumentException("segment_bytes must be at least " + MIN_SEGMENT_BYTES + ", was "
                    + segmentBytes);
        }
    }

    /** A memory cache with every default. */
    public static CacheConfig defaults() {
        return new CacheConfig(Backing.MEMORY, null, 1_000_000, 65_536, 64L << 20,
                new QueueLimits(8_192, 16L << 20), new QueueLimits(16_384, 64L << 20), 1 << 20,
                StreamConfig.Fsync.PERIODIC, 100_000, 16L << 20);
    }

    /** A memory cache with every default. */
    public static CacheConfig memory() {
        return defaults();
    }

    /** A log cache with {@code fsync} and every other default. */
    public static CacheConfig log(StreamConfig.Fsync fsync) {
        return defaults().withBacking(Backing.LOG).withFsync(fsync);
    }

    public CacheConfig withBacking(Backing value) {
        return new CacheConfig(value, defaultTtl, maxEntries, changeRingEvents, changeRingBytes, watcherQueue,
                writerQueue, maxValueBytes, fsync, snapshotEveryChanges, segmentBytes);
    }

    public CacheConfig withDefaultTtl(Duration value) {
        return new CacheConfig(backing, value, maxEntries, changeRingEvents, changeRingBytes, watcherQueue,
                writerQueue, maxValueBytes, fsync, snapshotEveryChanges, segmentBytes);
    }

    public CacheConfig withMaxEntries(int value) {
        return new CacheConfig(backing, defaultTtl, value, changeRingEvents, changeRingBytes, watcherQueue,
                writerQueue, maxValueBytes, fsync, snapshotEveryChanges, segmentBytes);
    }

    public CacheConfig withChangeRing(int events, long bytes) {
        return new CacheConfig(backing, defaultTtl, maxEntries, events, bytes, watcherQueue,
                writerQueue, maxValueBytes, fsync, snapshotEveryChanges, segmentBytes);
    }

    public CacheConfig withWatcherQueue(QueueLimits value) {
        return new CacheConfig(backing, defaultTtl, maxEntries, changeRingEvents, changeRingBytes, value,
                writerQueue, maxValueBytes, fsync, snapshotEveryChanges, segmentBytes);
    }

    public CacheConfig withWriterQueue(QueueLimits value) {
        return new CacheConfig(backing, defaultTtl, maxEntries, changeRingEvents, changeRingBytes, watcherQueue,
                value, maxValueBytes, fsync, snapshotEveryChanges, segmentBytes);
    }

    public CacheConfig withMaxValueBytes(int value) {
        return new CacheConfig(backing, defaultTtl, maxEntries, changeRingEvents, changeRingBytes, watcherQueue,
                writerQueue, value, fsync, snapshotEveryChanges, segmentBytes);
    }

    public CacheConfig withFsync(StreamConfig.Fsync value) {
        return new CacheConfig(backing, defaultTtl, maxEntries, changeRingEvents, changeRingBytes, watcherQueue,
                writerQueue, maxValueBytes, value, snapshotEveryChanges, segmentBytes);
    }

    public CacheConfig withSnapshotEveryChanges(long value) {
        return new CacheConfig(backing, defaultTtl, maxEntries, changeRingEvents, changeRingBytes, watcherQueue,
                writerQueue, maxValueBytes, fsync, value, segmentBytes);
    }

    public CacheConfig withSegmentBytes(long value) {
        return new CacheConfig(backing, defaultTtl, maxEntries, changeRingEvents, changeRingBytes, watcherQueue,
                writerQueue, maxValueBytes, fsync, snapshotEveryChanges, value);
    }
}
