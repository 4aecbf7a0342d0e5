package dev.felix.core.stream;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
    private final java.util.concurrent.atomic.AtomicReferenceArray<Shard> shards;
    /** Builds a fresh runtime for a shard index (at creation, and when a shard is reopened). */
    private final ShardMaker shardMaker;
    private final AtomicInteger roundRobin = new AtomicInteger();

    /**
     * Builds the runtime of shard {@code index}; it opens its log only once {@code predecessorClosed} has completed
     * (the runtime it replaces has closed its log), so two runtimes never write one log.
     */
    interface ShardMaker {
        Shard make(int index, CompletableFuture<Void> predecessorClosed);
    }

    private static final CompletableFuture<Void> NO_PREDECESSOR = CompletableFuture.completedFuture(null);

    Stream(StreamName name, StreamConfig config, long uid, ShardMaker shardMaker) {
        this.name = name;
        this.config = config;
        this.uid = uid;
        this.shardMaker = shardMaker;
        this.shards = new java.util.concurrent.atomic.AtomicReferenceArray<>(config.shards());
        for (int i = 0; i < config.shards(); i++) {
            shards.set(i, shardMaker.make(i, NO_PREDECESSOR));
        }
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
        return shards.length();
    }

    public Shard shard(int index) {
        return shards.get(index);
    }

    /**
     * Closes shard {@code index}'s runtime — its subscriptions end with {@code reason}, queued publishes are
     * refused with it, its log closes — and puts a fresh one in its place, which opens the log again on its
     * first use. A cluster member does this when leadership of the shard moves (away, or to it at a new
     * epoch). The future completes once the old runtime is closed.
     *
     * <p>The fresh runtime takes requests at once but opens the log only after the old one (and any runtime
     * before it still closing) has closed it; until then it refuses what needs the log with a retryable
     * {@code unavailable}. Without that, a request reaching the fresh runtime in the moment before the old one
     * ran its close would open the log a second time, and two writers would append to one directory.
     */
    public CompletableFuture<Void> reopenShard(int index, FelixError reason) {
        CompletableFuture<Void> predecessorClosed = new CompletableFuture<>();
        Shard old = shards.getAndSet(index, shardMaker.make(index, predecessorClosed));
        CompletableFuture<Void> closed = old.close(reason);
        CompletableFuture.allOf(closed, old.predecessorClosed()).whenComplete((v, e) -> predecessorClosed.complete(null));
        return closed;
    }

    /** The shard for {@code key}: a stable hash of its UTF-16 units, so the choice survives restarts. */
    public Shard shardFor(String key) {
        int n = shards.length();
        if (n == 1) {
            return shards.get(0);
        }
        if (key == null) {
            return shards.get(Math.floorMod(roundRobin.getAndIncrement(), n));
        }
        return shards.get(shardIndex(key, n));
    }

    /**
     * The shard index {@code key} maps to among {@code shardCount}: 32-bit FNV-1a over its UTF-16 units. Part
     * of the contract with clients (the cluster SDK computes it too, to publish straight to a shard's leader).
     */
    public static int shardIndex(String key, int shardCount) {
        int h = 0x811C9DC5;
        for (int i = 0; i < key.length(); i++) {
            h ^= key.charAt(i);
            h *= 0x01000193;
        }
        return Math.floorMod(h, shardCount);
    }

    public StreamInfo info() {
        List<ShardInfo> infos = new ArrayList<>(shards.length());
        for (int i = 0; i < shards.length(); i++) {
            infos.add(shards.get(i).info());
        }
        return new StreamInfo(name, config, infos);
    }

    /** Closes every shard: the broker is shutting down. */
    java.util.concurrent.CompletableFuture<Void> close() {
        return close(FelixError.of(ErrorCode.UNAVAILABLE, "the broker is shutting down"));
    }

    /** Closes every shard; subscriptions end with {@code reason}. */
    public java.util.concurrent.CompletableFuture<Void> close(FelixError reason) {
        java.util.concurrent.CompletableFuture<?>[] all = new java.util.concurrent.CompletableFuture<?>[shards.length()];
        for (int i = 0; i < all.length; i++) {
            all[i] = shards.get(i).close(reason);
        }
        return java.util.concurrent.CompletableFuture.allOf(all);
    }
}
