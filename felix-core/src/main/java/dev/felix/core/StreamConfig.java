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
 * @param consistency     durable streams in a cluster: when a batch is acknowledged and visible
 *                        ({@link Consistency}); default {@code leader}. {@code quorum} needs a durable stream.
 * @param replicas        durable streams in a cluster: copies of each shard, the leader's included
 *                        (1–{@value #MAX_REPLICAS}); 0 = the cluster's default, {@code min(3, nodes)}.
 *                        Ephemeral shards are never replicated.
 */
public record StreamConfig(int shards, boolean durable, Fsync fsync, long retentionBytes, Duration retentionAge,
                           Consistency consistency, int replicas) {

    /** Largest shard count of one stream. */
    public static final int MAX_SHARDS = 1024;
    /** Most replicas of one shard. */
    public static final int MAX_REPLICAS = 7;

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
        if (consistency == null) {
            consistency = Consistency.LEADER;
        }
        if (consistency == Consistency.QUORUM && !durable) {
            throw new IllegalArgumentException("consistency quorum needs a durable stream: an ephemeral stream"
                    + " is not replicated");
        }
        if (replicas < 0 || replicas > MAX_REPLICAS) {
            throw new IllegalArgumentException("replicas must be within [1, " + MAX_REPLICAS
                    + "] (or 0 for the cluster default), was " + replicas);
        }
        if (!durable && replicas > 1) {
            throw new IllegalArgumentException("replicas applies to durable streams only: an ephemeral stream"
                    + " is not replicated");
        }
    }

    /** Consistency {@code leader}, the cluster's default replica count. */
    public StreamConfig(int shards, boolean durable, Fsync fsync, long retentionBytes, Duration retentionAge) {
        this(shards, durable, fsync, retentionBytes, retentionAge, Consistency.LEADER, 0);
    }

    /** This definition with another consistency and replica count. */
    public StreamConfig withReplication(Consistency consistency, int replicas) {
        return new StreamConfig(shards, durable, fsync, retentionBytes, retentionAge, consistency, replicas);
    }

    /** One shard, ephemeral. */
    public static StreamConfig ephemeral() {
        return new StreamConfig(1, false, Fsync.PERIODIC, 0, null);
    }

    public static StreamConfig ephemeral(int shards) {
        return new StreamConfig(shards, false, Fsync.PERIODIC, 0, null);
    }
}
