package dev.felix.core;

import java.time.Duration;
import java.util.Locale;

/**
 * The guarantees a stream declares. Defaults: one shard, ephemeral.
 *
 * @param shards          number of shards (1–{@value #MAX_SHARDS}); a key or round-robin picks one
 * @param durable         whether events are written to a log on disk
 * @param fsync           durable streams: when the log is forced to the device
 * @param retentionBytes  durable streams: oldest segments are deleted beyond this many bytes per shard
 *                        (0 = unbounded)
 * @param retentionAge    durable streams: oldest segments are deleted when older (null = unbounded)
 */
public record StreamConfig(int shards, boolean durable, Fsync fsync, long retentionBytes, Duration retentionAge) {

    /** Largest shard count of one stream. */
    public static final int MAX_SHARDS = 1024;

    /** When a durable stream's log is forced to the device. */
    public enum Fsync {
        /** Before the publish is acknowledged (concurrent appends share one fsync). */
        ON_COMMIT,
        /** Every 250 ms in the background; a crash can lose the last interval. */
        PERIODIC,
        /** Left to the operating system; survives a process crash, not a power loss. */
        NONE;

        private final String wireName = name().toLowerCase(Locale.ROOT);

        public String wireName() {
            return wireName;
        }

        public static Fsync parse(String name) {
            for (Fsync f : values()) {
                if (f.wireName.equals(name)) {
                    return f;
                }
            }
            throw new IllegalArgumentException("unknown fsync policy '" + name
                    + "'; expected on_commit, periodic or none");
        }
    }

    public StreamConfig {
        if (shards < 1 || shards > MAX_SHARDS) {
            throw new IllegalArgumentException("shards must be within [1, " + MAX_SHARDS + "], was " + shards);
        }
        if (fsync == null) {
            fsync = Fsync.PERIODIC;
        }
        if (retentionBytes < 0) {
            throw new IllegalArgumentException("retention_bytes must be >= 0, was " + retentionBytes);
        }
        if (retentionAge != null && (retentionAge.isNegative() || retentionAge.isZero())) {
            throw new IllegalArgumentException("retention_age must be positive, was " + retentionAge);
        }
        if (!durable && (retentionBytes != 0 || retentionAge != null)) {
            throw new IllegalArgumentException("retention applies to durable streams only");
        }
    }

    /** One shard, ephemeral. */
    public static StreamConfig ephemeral() {
        return new StreamConfig(1, false, Fsync.PERIODIC, 0, null);
    }

    public static StreamConfig ephemeral(int shards) {
        return new StreamConfig(shards, false, Fsync.PERIODIC, 0, null);
    }
}
