package dev.felix.core;

import java.time.Duration;
import java.util.Locale;

/**
 * The guarantees a stream declares. Immutable and thread-safe; its {@link Builder} is for one thread.
 *
 * <p>Build with {@link #builder()} (defaults: {@value #DEFAULT_SHARDS} shard, ephemeral, the constants below);
 * each option checks its value at the call and {@link Builder#build()} checks the rules between options
 * (retention, {@code quorum} and replicas need a durable stream). The canonical constructor applies the same
 * checks, so a definition read from disk or the wire is held to the same rules. A bad value throws
 * {@link IllegalArgumentException} naming the setting as the wire and the CLI spell it.
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
 * @param noReplay        ephemeral streams only: no subscriber ever needs a lost event again (presence, live
 *                        telemetry), so a node relaying the stream only counts what it loses, never fencing or
 *                        closing a subscriber for it (it still never delivers an event late)
 */
public record StreamConfig(int shards, boolean durable, Fsync fsync, long retentionBytes, Duration retentionAge,
                           Consistency consistency, int replicas, boolean noReplay) {

    /** Largest shard count of one stream. */
    public static final int MAX_SHARDS = 1024;
    /** Most replicas of one shard. */
    public static final int MAX_REPLICAS = 7;
    /** Default shard count: 1. */
    public static final int DEFAULT_SHARDS = 1;
    /** Default: ephemeral (events live in memory only). */
    public static final boolean DEFAULT_DURABLE = false;
    /** Default fsync policy of a durable stream: {@code periodic}. */
    public static final Fsync DEFAULT_FSYNC = Fsync.PERIODIC;
    /** Default retention in bytes per shard: 0, unbounded. */
    public static final long DEFAULT_RETENTION_BYTES = 0;
    /** Default consistency: {@code leader}. */
    public static final Consistency DEFAULT_CONSISTENCY = Consistency.LEADER;
    /** Default replica count: 0, the cluster's default ({@code min(3, nodes)}). */
    public static final int DEFAULT_REPLICAS = 0;

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
        checkShards(shards);
        if (fsync == null) {
            fsync = DEFAULT_FSYNC;
        }
        checkRetentionBytes(retentionBytes);
        checkRetentionAge(retentionAge);
        if (!durable && (retentionBytes != 0 || retentionAge != null)) {
            throw new IllegalArgumentException("retention applies to durable streams only");
        }
        if (consistency == null) {
            consistency = DEFAULT_CONSISTENCY;
        }
        if (consistency == Consistency.QUORUM && !durable) {
            throw new IllegalArgumentException("consistency quorum needs a durable stream: an ephemeral stream"
                    + " is not replicated");
        }
        checkReplicas(replicas);
        if (!durable && replicas > 1) {
            throw new IllegalArgumentException("replicas applies to durable streams only: an ephemeral stream"
                    + " is not replicated");
        }
        if (durable && noReplay) {
            throw new IllegalArgumentException("no_replay applies to ephemeral streams only: a durable stream's"
                    + " subscribers can always replay from its log");
        }
    }

    /** Without {@code no_replay}. */
    public StreamConfig(int shards, boolean durable, Fsync fsync, long retentionBytes, Duration retentionAge,
            Consistency consistency, int replicas) {
        this(shards, durable, fsync, retentionBytes, retentionAge, consistency, replicas, false);
    }

    /** Consistency {@code leader}, the cluster's default replica count. */
    public StreamConfig(int shards, boolean durable, Fsync fsync, long retentionBytes, Duration retentionAge) {
        this(shards, durable, fsync, retentionBytes, retentionAge, Consistency.LEADER, 0);
    }

    /** A builder holding every default. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this definition. */
    public Builder toBuilder() {
        return new Builder().shards(shards).durable(durable).fsync(fsync).retentionBytes(retentionBytes)
                .retentionAge(retentionAge).consistency(consistency).replicas(replicas).noReplay(noReplay);
    }

    /** This definition with another consistency and replica count (shorthand for the builder's). */
    public StreamConfig withReplication(Consistency consistency, int replicas) {
        return toBuilder().consistency(consistency).replicas(replicas).build();
    }

    /** One shard, ephemeral: every default. */
    public static StreamConfig ephemeral() {
        return builder().build();
    }

    /** An ephemeral stream of {@code shards} shards. */
    public static StreamConfig ephemeral(int shards) {
        return builder().shards(shards).build();
    }

    private static int checkShards(int shards) {
        if (shards < 1 || shards > MAX_SHARDS) {
            throw new IllegalArgumentException("shards must be within [1, " + MAX_SHARDS + "], was " + shards);
        }
        return shards;
    }

    private static long checkRetentionBytes(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("retention_bytes must be >= 0 (0 = unbounded), was " + bytes);
        }
        return bytes;
    }

    private static Duration checkRetentionAge(Duration age) {
        if (age != null && (age.isNegative() || age.isZero())) {
            throw new IllegalArgumentException("retention_age must be positive (or unset for unbounded), was " + age);
        }
        return age;
    }

    private static int checkReplicas(int replicas) {
        if (replicas < 0 || replicas > MAX_REPLICAS) {
            throw new IllegalArgumentException("replicas must be within [1, " + MAX_REPLICAS
                    + "] (or 0 for the cluster default), was " + replicas);
        }
        return replicas;
    }

    /**
     * Builds a {@link StreamConfig}. Each option checks its value at the call; {@link #build()} checks the rules
     * between options. Not thread-safe.
     */
    public static final class Builder {
        private int shards = DEFAULT_SHARDS;
        private boolean durable = DEFAULT_DURABLE;
        private Fsync fsync = DEFAULT_FSYNC;
        private long retentionBytes = DEFAULT_RETENTION_BYTES;
        private Duration retentionAge;
        private Consistency consistency = DEFAULT_CONSISTENCY;
        private int replicas = DEFAULT_REPLICAS;
        private boolean noReplay;

        private Builder() {
        }

        /** Shards, 1..{@value StreamConfig#MAX_SHARDS}; default {@value StreamConfig#DEFAULT_SHARDS}. */
        public Builder shards(int value) {
            this.shards = checkShards(value);
            return this;
        }

        /** Whether events are written to a log on disk; default {@value StreamConfig#DEFAULT_DURABLE}. */
        public Builder durable(boolean value) {
            this.durable = value;
            return this;
        }

        /** Durable streams: when the log is forced to the device; default {@code periodic} (null also means it). */
        public Builder fsync(Fsync value) {
            this.fsync = value != null ? value : DEFAULT_FSYNC;
            return this;
        }

        /** Durable streams: bytes kept per shard, &ge; 0; default 0 (unbounded). */
        public Builder retentionBytes(long bytes) {
            this.retentionBytes = checkRetentionBytes(bytes);
            return this;
        }

        /** Durable streams: segments older than this are deleted; positive, or null (the default) for unbounded. */
        public Builder retentionAge(Duration age) {
            this.retentionAge = checkRetentionAge(age);
            return this;
        }

        /** Durable streams in a cluster: when a batch is acknowledged; default {@code leader} (null also means it). */
        public Builder consistency(Consistency value) {
            this.consistency = value != null ? value : DEFAULT_CONSISTENCY;
            return this;
        }

        /**
         * Durable streams in a cluster: copies of each shard, 1..{@value StreamConfig#MAX_REPLICAS}, or 0 (the
         * default) for the cluster's default.
         */
        public Builder replicas(int value) {
            this.replicas = checkReplicas(value);
            return this;
        }

        /**
         * Ephemeral streams: lost events are never replayed to anyone (see {@link StreamConfig#noReplay()});
         * default false.
         */
        public Builder noReplay(boolean value) {
            this.noReplay = value;
            return this;
        }

        /**
         * The definition; refuses retention, {@code quorum} or replicas &gt; 1 on an ephemeral stream, and
         * {@code no_replay} on a durable one.
         */
        public StreamConfig build() {
            return new StreamConfig(shards, durable, fsync, retentionBytes, retentionAge, consistency, replicas,
                    noReplay);
        }
    }
}
