package dev.felix.core.stream;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A named stream: its declared {@link StreamConfig} and its shards. Thread-safe.
 *
 * <p>A publish picks its shard by key (a stable hash, so one key always lands on one shard and keeps
 * its order) or round-robin when it has none.
 */
public final class Stream {

    private final StreamName name;
    private final StreamConfig config;
    private final long uid;
    private final Shard[] shards;
    private final AtomicInteger roundRobin = new AtomicInteger();

    Stream(StreamName name, StreamConfig config, long uid, Shard[] shards) {
        this.name = name;
        this.config = config;
        this.uid = uid;
        this.shards = shards;
    }

    public StreamName name() {
        return name;
    }

    public StreamConfig config() {
        return config;
    }

    /** The uid metadata gave this stream (0: created before uids, or created on first use in dev mode). */
    public long uid() {
        return uid;
    }

    public int shardCount() {
        return shards.length;
    }

    public Shard shard(int index) {
        return shards[index];
    }

    /** The shard for {@code key}: a stable hash of its UTF-16 units, so the choice survives restarts. */
    public Shard shardFor(String key) {
        if (shards.length == 1) {
            return shards[0];
        }
        if (key == null) {
            return shards[Math.floorMod(roundRobin.getAndIncrement(), shards.length)];
        }
        int h = 0x811C9DC5; // FNV-1a, 32-bit
        for (int i = 0; i < key.length(); i++) {
            h ^= key.charAt(i);
            h *= 0x01000193;
        }
        return shards[Math.floorMod(h, shards.length)];
    }

    public StreamInfo info() {
        List<ShardInfo> infos = new ArrayList<>(shards.length);
        for (Shard s : shards) {
            infos.add(s.info());
        }
        return new StreamInfo(name, config, infos);
    }

    /** Closes every shard: the broker is shutting down. */
    java.util.concurrent.CompletableFuture<Void> close() {
        return close(FelixError.of(ErrorCode.UNAVAILABLE, "the broker is shutting down"));
    }

    /** Closes every shard; subscriptions end with {@code reason}. */
    public java.util.concurrent.CompletableFuture<Void> close(FelixError reason) {
        java.util.concurrent.CompletableFuture<?>[] all = new java.util.concurrent.CompletableFuture<?>[shards.length];
        for (int i = 0; i < shards.length; i++) {
            all[i] = shards[i].close(reason);
        }
        return java.util.concurrent.CompletableFuture.allOf(all);
    }
}
