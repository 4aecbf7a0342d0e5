package dev.felix.core.stream;

import dev.felix.core.CoreConfig;
import dev.felix.core.CoreMetrics;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.storage.FsyncPolicy;
import dev.felix.storage.LogConfig;
import dev.felix.storage.LogId;
import dev.felix.storage.StorageRuntime;
import dev.felix.core.writer.GateFactory;
import dev.felix.core.writer.LogRef;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Builds streams and their shards with the broker's shared executor, metrics, id sequence and (for
 * durable streams) storage runtime. Creating a durable stream opens nothing: each shard opens its log
 * on first use.
 */
public final class StreamFactory {

    private final CoreConfig config;
    private final CoreMetrics metrics;
    private final Executor executor;
    private final StorageRuntime storage;
    private final Path logsRoot;
    private final GateFactory gates;
    private final AtomicLong subscriberIds = new AtomicLong();
    private final SecureRandom random = new SecureRandom();

    /**
     * @param storage  the node's storage runtime, or null when durable streams are not supported
     * @param logsRoot where shard logs live (with {@code storage})
     */
    public StreamFactory(CoreConfig config, CoreMetrics metrics, Executor executor, StorageRuntime storage,
            Path logsRoot) {
        this(config, metrics, executor, storage, logsRoot, GateFactory.LOCAL);
    }

    /** @param gates chooses each durable shard's commit gate when its log opens */
    public StreamFactory(CoreConfig config, CoreMetrics metrics, Executor executor, StorageRuntime storage,
            Path logsRoot, GateFactory gates) {
        this.gates = gates;
        this.config = config;
        this.metrics = metrics;
        this.executor = executor;
        this.storage = storage;
        this.logsRoot = logsRoot;
    }

    /** The stream {@code name} with metadata's {@code uid} (0 for a legacy or dev-mode stream). */
    public Stream create(StreamName name, StreamConfig streamConfig, long uid) {
        if (streamConfig.durable() && storage == null) {
            throw new IllegalStateException("durable streams need a data directory");
        }
        return new Stream(name, streamConfig, uid, (i, predecessorClosed) -> shard(name, streamConfig, uid, i,
                predecessorClosed));
    }

    /**
     * A fresh runtime for shard {@code i} (its log, if durable, opens on first use, once {@code predecessorClosed}
     * has completed).
     */
    private Shard shard(StreamName name, StreamConfig streamConfig, long uid, int i,
            java.util.concurrent.CompletableFuture<Void> predecessorClosed) {
        QueuePolicy policy = streamConfig.durable() ? config.durablePolicy() : config.ephemeralPolicy();
        boolean onCommit = streamConfig.durable() && streamConfig.fsync() == StreamConfig.Fsync.ON_COMMIT;
        // A fresh random incarnation: offsets of an earlier run of an ephemeral shard mean nothing here.
        long incarnation = random.nextLong() & Long.MAX_VALUE;
        if (incarnation == 0) {
            incarnation = 1;
        }
        String label = name + "/" + i;
        ShardLog log = null;
        if (streamConfig.durable()) {
            log = new ShardLog(label, logDirectory(name, i, uid), logConfig(streamConfig), storage);
        }
        return new Shard(label, i, incarnation, config, metrics, executor, subscriberIds::incrementAndGet, policy, log,
                onCommit, new LogRef(LogRef.Kind.STREAM, name.toString(), uid, i), gates, predecessorClosed);
    }

    /** Where shard {@code shard} of the stream keeps its log. */
    public Path logDirectory(StreamName name, int shard, long uid) {
        return new LogId(name.tenant(), name.namespace(), name.stream(), shard, uid).resolve(logsRoot);
    }

    /** The log configuration of a durable stream's shards (a replica's copy uses the same). */
    public LogConfig logConfig(StreamConfig s) {
        LogConfig.Builder b = LogConfig.builder()
                .segmentBytes(config.storage().segmentBytes())
                .repairCorruptTail(config.storage().repairCorruptTail())
                .fsyncPolicy(switch (s.fsync()) {
                    case ON_COMMIT -> FsyncPolicy.onCommit();
                    case PERIODIC -> FsyncPolicy.periodic();
                    case NONE -> FsyncPolicy.none();
                });
        if (s.retentionBytes() > 0 || s.retentionAge() != null) {
            b.retentionCheckInterval(config.storage().retentionCheck());
        }
        if (s.retentionBytes() > 0) {
            b.retentionBytes(s.retentionBytes());
        }
        if (s.retentionAge() != null) {
            b.retentionAge(s.retentionAge());
        }
        return b.build();
    }

    /** Ends the stream's subscriptions, answers its queued publishes and closes its logs. */
    public static CompletableFuture<Void> close(Stream stream) {
        return stream.close();
    }
}
