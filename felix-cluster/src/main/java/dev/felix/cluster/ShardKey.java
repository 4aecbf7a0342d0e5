package dev.felix.cluster;

import java.util.Objects;

/**
 * One replicated unit: a shard of a stream, or a cache (shard 0), named by its resource's uid so a deleted
 * and re-created stream never meets the old one's replicas.
 *
 * @param kind  stream shard or cache
 * @param uid   the stream's or cache's uid from metadata (never 0 in a cluster)
 * @param shard the shard index; 0 for a cache
 */
public record ShardKey(Kind kind, long uid, int shard) {

    /** What a {@link ShardKey} names. */
    public enum Kind {
        STREAM,
        CACHE
    }

    public ShardKey {
        Objects.requireNonNull(kind, "kind");
        if (shard < 0) {
            throw new IllegalArgumentException("shard must be >= 0, was " + shard);
        }
    }

    public static ShardKey stream(long uid, int shard) {
        return new ShardKey(Kind.STREAM, uid, shard);
    }

    public static ShardKey cache(long uid) {
        return new ShardKey(Kind.CACHE, uid, 0);
    }

    @Override
    public String toString() {
        return (kind == Kind.STREAM ? "stream " : "cache ") + Long.toHexString(uid) + "/" + shard;
    }
}
