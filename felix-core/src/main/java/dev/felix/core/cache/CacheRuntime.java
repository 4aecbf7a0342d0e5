package dev.felix.core.cache;

import dev.felix.core.writer.GateFactory;
import dev.felix.storage.StorageRuntime;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What the caches of one node share. The owner (the broker) creates and shuts down every executor; the
 * caches only submit to them.
 *
 * @param writers       runs every cache's single writer (typically the broker's shard pool)
 * @param io            writes snapshots (blocking file I/O; keep it off the writers' threads)
 * @param timer         runs the periodic TTL sweep every {@code sweepInterval}; null = the owner calls
 *                      {@link Caches#sweepAll()} itself (tests do, with a fake clock)
 * @param clock         time for TTLs: absolute expiry times are epoch ms of this clock (inject one in tests)
 * @param storage       the node's storage runtime; null = only memory caches
 * @param dataDir       root of the node's data: definitions under {@code caches/}, logs under {@code logs/};
 *                      null = nothing is persisted (memory caches only)
 * @param sweepInterval how often {@code timer} sweeps (each cache whose earliest expiry is due)
 * @param gates         chooses the commit gate of a log cache when its log opens: local durability on a single
 *                      node ({@link GateFactory#LOCAL}), replication in a cluster (the same gates durable stream
 *                      shards get); it may refuse the open when this node does not lead the cache
 */
public record CacheRuntime(Executor writers, Executor io, ScheduledExecutorService timer, Clock clock,
        StorageRuntime storage, Path dataDir, Duration sweepInterval, GateFactory gates) {

    /** Default sweep interval. */
    public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofSeconds(1);

    public CacheRuntime {
        Objects.requireNonNull(writers, "writers");
        Objects.requireNonNull(clock, "clock");
        if (storage != null) {
            Objects.requireNonNull(dataDir, "dataDir (log caches need a data directory)");
            Objects.requireNonNull(io, "io (log caches write snapshots on it)");
        }
        if (sweepInterval == null) {
            sweepInterval = DEFAULT_SWEEP_INTERVAL;
        }
        if (sweepInterval.isZero() || sweepInterval.isNegative()) {
            throw new IllegalArgumentException("sweep_interval must be positive, was " + sweepInterval);
        }
        if (gates == null) {
            gates = GateFactory.LOCAL;
        }
    }

    /** A single node's runtime: log caches commit on local durability. */
    public CacheRuntime(Executor writers, Executor io, ScheduledExecutorService timer, Clock clock,
            StorageRuntime storage, Path dataDir, Duration sweepInterval) {
        this(writers, io, timer, clock, storage, dataDir, sweepInterval, GateFactory.LOCAL);
    }

    /** Memory caches only, nothing persisted, the system clock, swept by the owner. */
    public static CacheRuntime memoryOnly(Executor writers) {
        return new CacheRuntime(writers, null, null, Clock.systemUTC(), null, null, DEFAULT_SWEEP_INTERVAL);
    }

    /** Where log caches keep their directories. */
    Path logsRoot() {
        return dataDir == null ? null : dataDir.resolve("logs");
    }

    /** Where cache definitions are stored. */
    Path catalogRoot() {
        return dataDir == null ? null : dataDir.resolve("caches");
    }
}
