package dev.felix.cluster.replication;

import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.broker.Broker;
import dev.felix.core.cache.CacheConfig;
import dev.felix.core.cache.CacheName;
import dev.felix.core.cache.Caches;
import dev.felix.core.metadata.CacheRecord;
import dev.felix.core.metadata.StreamRecord;
import dev.felix.storage.LogConfig;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What {@link ReplicaManager} replicates, seen through the broker: a durable stream shard or a log cache. Both
 * are one log with one writer and a commit gate; they differ only in where the broker keeps their runtime.
 */
sealed interface ReplicatedUnit {

    /** Where this node keeps the unit's log and how it is written. */
    record Local(Path dir, LogConfig logConfig, boolean onCommit) {
    }

    /** {@code name/shard} or {@code name}, for logs. */
    String label();

    /** The unit's log on this node, once metadata with {@code uid} has been applied here; else empty. */
    Optional<Local> local(Broker broker, long uid) throws FelixException;

    /**
     * Closes the unit's runtime on this node with {@code reason} (its subscribers or watchers end with it), so
     * the next use opens its log again through the gate, at the current epoch.
     */
    CompletableFuture<Void> reopen(Broker broker, FelixError reason);

    /** Opens the unit's log now (this node leads it), so followers can fetch before the first client use. */
    void load(Broker broker) throws FelixException;

    /**
     * Whether {@link #reopen} closes and reopens the same runtime on its own writer (a stream shard), so requests
     * never reach a second runtime; false when a new instance replaces the released one (a cache).
     */
    boolean reopensInPlace();

    /** The unit a placement names, or empty when its name does not parse. */
    static Optional<ReplicatedUnit> of(ShardPlacement p) {
        try {
            return Optional.of(p.key().kind() == ShardKey.Kind.CACHE ? new LogCache(CacheName.parse(p.name()))
                    : new StreamShard(StreamName.parse(p.name()), p.key().shard()));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** A durable stream shard. */
    record StreamShard(StreamName name, int shard) implements ReplicatedUnit {
        @Override
        public String label() {
            return name + "/" + shard;
        }

        @Override
        public Optional<Local> local(Broker broker, long uid) throws FelixException {
            Optional<StreamRecord> record = broker.metadata().stream(name);
            if (record.isEmpty() || record.get().uid() != uid) {
                return Optional.empty();
            }
            StreamConfig config = record.get().config();
            return Optional.of(new Local(broker.logDirectory(name, shard, uid), broker.logConfig(config),
                    config.fsync() == StreamConfig.Fsync.ON_COMMIT));
        }

        @Override
        public CompletableFuture<Void> reopen(Broker broker, FelixError reason) {
            return broker.reopenShard(name, shard, reason);
        }

        @Override
        public boolean reopensInPlace() {
            return true;
        }

        @Override
        public void load(Broker broker) throws FelixException {
            broker.stream(name).shard(shard).load().exceptionally(e -> null);
        }
    }

    /** A log-backed cache. */
    record LogCache(CacheName name) implements ReplicatedUnit {
        @Override
        public String label() {
            return name.toString();
        }

        @Override
        public Optional<Local> local(Broker broker, long uid) throws FelixException {
            Optional<CacheRecord> record = broker.metadata().cache(name);
            if (record.isEmpty() || record.get().uid() != uid) {
                return Optional.empty();
            }
            CacheConfig config = record.get().config();
            return Optional.of(new Local(broker.caches().logDirectory(name, uid), Caches.logConfig(config),
                    config.fsync() == StreamConfig.Fsync.ON_COMMIT));
        }

        @Override
        public CompletableFuture<Void> reopen(Broker broker, FelixError reason) {
            return broker.caches().release(name, reason);
        }

        @Override
        public boolean reopensInPlace() {
            return false;
        }

        @Override
        public void load(Broker broker) throws FelixException {
            broker.caches().get(name).load().exceptionally(e -> null);
        }
    }
}
