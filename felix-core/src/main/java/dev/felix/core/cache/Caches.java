package dev.felix.core.cache;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.StreamConfig;
import dev.felix.storage.FsyncPolicy;
import dev.felix.storage.LogConfig;
import dev.felix.storage.LogDirectories;
import dev.felix.storage.LogId;
import dev.felix.storage.StorageException;
import dev.felix.core.metadata.CacheRecord;
import dev.felix.core.metadata.LocalMetadata;
import dev.felix.core.metadata.Metadata;
import dev.felix.core.writer.LogRef;
import java.util.concurrent.CompletionException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The caches of one broker node: create, look up, list and drop by {@link CacheName}, sweep TTLs, close.
 * Definitions live in the node's {@link Metadata}.
 *
 * <p><b>Boot cost does not grow with stored data.</b> Constructing this reads nothing. {@link #get} asks
 * metadata the first time a cache is named; a log cache opens and replays its log only when it is first used
 * ({@link Cache#load()}, or any operation). A log cache's directory is
 * {@code <dataDir>/logs/<LogId(tenant, namespace, "cache:" + cache, 0)>} (see {@link CacheLog}).
 *
 * <p><b>Thread-safety:</b> thread-safe. Lookups of known caches are a map read; creating and dropping return
 * futures that complete once metadata holds the change (the blocking {@link #create} waits for it: tools and
 * tests only, never an event loop).
 */
public final class Caches implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Caches.class);

    /** How long {@link #close()} waits for the caches to flush and close their logs. */
    static final long CLOSE_WAIT_SECONDS = 30;

    private final CacheRuntime runtime;
    private final Metadata metadata;
    private final boolean autoCreateTenants;
    private final ConcurrentHashMap<CacheName, Cache> caches = new ConcurrentHashMap<>();
    /**
     * The definition each cache opened on this node since start was built from, kept after a release (its
     * data stays here): what {@link #closeDeleted} compares with metadata, and whose log it removes.
     */
    private final ConcurrentHashMap<CacheName, CacheRecord> built = new ConcurrentHashMap<>();
    private final AtomicLong watchIds = new AtomicLong();
    private final ScheduledFuture<?> sweeper;
    private volatile boolean closed;

    /** Caches with their own local metadata (under the runtime's data directory); tenants register on create. */
    public Caches(CacheRuntime runtime) {
        this(runtime, runtime.dataDir() == null ? LocalMetadata.inMemory() : LocalMetadata.at(runtime.dataDir()), true);
    }

    /**
     * @param metadata          where definitions live
     * @param autoCreateTenants register an unknown tenant on create (dev mode) instead of refusing it
     */
    public Caches(CacheRuntime runtime, Metadata metadata, boolean autoCreateTenants) {
        this.runtime = runtime;
        this.metadata = metadata;
        this.autoCreateTenants = autoCreateTenants;
        long every = runtime.sweepInterval().toMillis();
        this.sweeper = runtime.timer() == null ? null
                : runtime.timer().scheduleWithFixedDelay(this::sweepAll, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * Creates the cache, or returns it if it exists with the same definition; completes once the definition
     * is stored. Fails with {@code already_exists} (same name, another definition), {@code bad_request} (a log
     * cache on a node without storage), {@code not_found} (unknown tenant), {@code unavailable} (closed, or
     * the definition could not be stored).
     */
    public CompletableFuture<Cache> createAsync(CacheName name, CacheConfig config) {
        try {
            checkOpen();
            if (config.backing() == CacheConfig.Backing.LOG && runtime.storage() == null) {
                throw FelixError.of(ErrorCode.BAD_REQUEST, "log caches need a data directory; this node runs"
                        + " without storage").toException();
            }
        } catch (FelixException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Void> tenant = autoCreateTenants && !metadata.tenantExists(name.tenant())
                ? metadata.createTenant(name.tenant()) : CompletableFuture.completedFuture(null);
        return tenant.thenCompose(v -> metadata.createCache(name, config)).thenApply(this::live);
    }

    /** {@link #createAsync}, waiting for it. */
    public Cache create(CacheName name, CacheConfig config) throws FelixException {
        try {
            return createAsync(name, config).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw FelixError.of(ErrorCode.UNAVAILABLE, "interrupted while creating cache " + name).toException();
        } catch (ExecutionException e) {
            Throwable c = e.getCause() instanceof CompletionException && e.getCause().getCause() != null
                    ? e.getCause().getCause() : e.getCause();
            if (c instanceof FelixException fe) {
                throw fe;
            }
            throw FelixError.of(ErrorCode.INTERNAL, "creating cache " + name + " failed: " + c).toException();
        }
    }

    /**
     * The cache named {@code name} (a log cache is not loaded yet).
     *
     * @throws FelixException {@code not_found}; {@code corruption} when its definition cannot be read
     */
    public Cache get(CacheName name) throws FelixException {
        return find(name).orElseThrow(
                () -> FelixError.of(ErrorCode.NOT_FOUND, "cache not found: " + name).toException());
    }

    /** The cache if it exists; never creates. */
    public Optional<Cache> find(CacheName name) throws FelixException {
        Cache c = caches.get(name);
        if (c != null) {
            return Optional.of(c);
        }
        checkOpen();
        Optional<CacheRecord> stored = metadata.cache(name);
        if (stored.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(live(stored.get()));
    }

    /** Names of the caches of a tenant (and namespace, if not null), sorted. */
    public List<CacheName> list(String tenant, String namespace) throws FelixException {
        List<CacheName> out = new ArrayList<>();
        for (CacheRecord r : metadata.caches(tenant, namespace)) {
            out.add(r.name());
        }
        return out;
    }

    /**
     * Drops a cache and its data: its definition first (durably), then its watches end with
     * {@code not_found}, queued mutations are refused, and its log is removed. Refused with {@code in_use}
     * while it has watchers, unless {@code force}.
     */
    public CompletableFuture<Void> drop(CacheName name, boolean force) {
        Cache live;
        try {
            checkOpen();
            // Only an open instance can have watchers: building one just to drop it would open it on a node
            // that may not serve it (a cluster member drops for any node).
            live = caches.get(name);
        } catch (FelixException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (live != null && !force && live.info().watchers() > 0) {
            return CompletableFuture.failedFuture(FelixError.of(ErrorCode.IN_USE, "cache " + name + " has "
                    + live.info().watchers() + " watcher(s); drop it with force to end them").toException());
        }
        return metadata.deleteCache(name).thenCompose(record -> {
            built.remove(name);
            Cache c = caches.remove(name);
            CompletableFuture<Void> closing = c == null ? CompletableFuture.completedFuture(null)
                    : c.close(FelixError.of(ErrorCode.NOT_FOUND, "cache " + name + " was dropped"));
            return closing.thenRun(() -> removeLog(record));
        });
    }

    /**
     * Stops serving {@code name} on this node without touching its definition or data: the instance closes
     * with {@code reason} (its watchers end with it), and a later lookup opens it afresh. For a cluster member
     * whose cache moved to another node. Completes when the instance has closed; at once if none was open.
     */
    public CompletableFuture<Void> release(CacheName name, FelixError reason) {
        Cache c = caches.remove(name);
        return c == null ? CompletableFuture.completedFuture(null) : c.close(reason);
    }

    /**
     * Closes every open cache whose definition metadata no longer holds (deleted through another node of a
     * cluster, or deleted and created again with a new uid): its watches end with {@code not_found}, queued
     * mutations are refused, and its log on this node is removed, as {@link #drop} does on the node asked.
     * Completes when they have closed.
     */
    public CompletableFuture<Void> closeDeleted() {
        List<CompletableFuture<Void>> closing = new ArrayList<>();
        for (CacheRecord r : built.values()) {
            if (stillDefined(r) || !built.remove(r.name(), r)) {
                continue;
            }
            Cache c = caches.get(r.name());
            CompletableFuture<Void> closed = CompletableFuture.completedFuture(null);
            if (c != null && caches.remove(r.name(), c)) {
                LOG.info("cache {} was dropped (uid {}); closing it on this node", r.name(), r.uid());
                closed = c.close(FelixError.of(ErrorCode.NOT_FOUND, "cache " + r.name() + " was dropped"));
            }
            closing.add(closed.thenRun(() -> removeLog(r)));
        }
        return CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new));
    }

    private boolean stillDefined(CacheRecord r) {
        try {
            return metadata.cache(r.name()).map(now -> now.uid() == r.uid()).orElse(false);
        } catch (FelixException e) {
            return true; // unreadable: keep serving; a later pass decides
        }
    }

    /** Caches in use on this node (named since start). */
    public List<Cache> caches() {
        return List.copyOf(caches.values());
    }

    /**
     * Sweeps every loaded cache whose earliest expiry is due (the timer calls this every
     * {@link CacheRuntime#sweepInterval()}; without a timer the owner does).
     */
    public void sweepAll() {
        for (Cache c : caches.values()) {
            try {
                c.sweepIfDue();
            } catch (RuntimeException e) {
                LOG.warn("sweep of cache {} failed: {}", c.name(), e.toString());
            }
        }
    }

    /**
     * Closes every cache (each flushes and closes its log and ends its watches) and stops the sweep; waits at
     * most {@value #CLOSE_WAIT_SECONDS} s. Idempotent. The executors belong to the owner.
     */
    @Override
    public void close() {
        closed = true;
        if (sweeper != null) {
            sweeper.cancel(false);
        }
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (Cache c : caches.values()) {
            done.add(c.close());
        }
        try {
            CompletableFuture.allOf(done.toArray(CompletableFuture<?>[]::new)).get(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("not every cache closed within {} s: {}", CLOSE_WAIT_SECONDS, e.toString());
        }
    }

    /** The live cache of a stored definition, built on first use. */
    private Cache live(CacheRecord r) {
        return caches.computeIfAbsent(r.name(), n -> {
            Cache c = build(n, r.config(), r.uid());
            built.put(n, r);
            return c;
        });
    }

    private Cache build(CacheName name, CacheConfig config, long uid) {
        CacheLog log = null;
        if (config.backing() == CacheConfig.Backing.LOG) {
            if (runtime.storage() == null) {
                throw new IllegalStateException("cache " + name + " is a log cache but this node runs without storage");
            }
            log = new CacheLog(name.toString(), logDirectory(name, uid), logConfig(config),
                    runtime.storage(), config.fsync() == StreamConfig.Fsync.ON_COMMIT);
        }
        return new Cache(name, config, log, runtime.writers(), runtime.io(), runtime.clock(),
                watchIds::incrementAndGet, uid, runtime.gates());
    }

    /** For tests: the uid metadata gave a cache (0 if it has none). */
    long metadataUid(CacheName name) throws FelixException {
        return metadata.cache(name).map(CacheRecord::uid).orElse(0L);
    }

    /** Where the log of a log cache lives on this node (its leader's log, or this node's replica of it). */
    public java.nio.file.Path logDirectory(CacheName name, long uid) {
        return new LogId(name.tenant(), name.namespace(), "cache:" + name.cache(), 0, uid).resolve(runtime.logsRoot());
    }

    private void removeLog(CacheRecord r) {
        if (r.config().backing() != CacheConfig.Backing.LOG || runtime.logsRoot() == null) {
            return;
        }
        java.nio.file.Path dir = logDirectory(r.name(), r.uid());
        Runnable remove = () -> {
            try {
                LogDirectories.delete(dir);
            } catch (StorageException e) {
                LOG.warn("could not remove the log of dropped cache {} (retried later): {}", r.name(), e.getMessage());
            }
        };
        // A cluster member's follower copy of the cache lives in the same directory: it closes first.
        runtime.gates().releaseCopy(new LogRef(LogRef.Kind.CACHE, r.name().toString(), r.uid(), 0))
                .whenComplete((v, e) -> {
                    if (runtime.io() == null) {
                        remove.run();
                        return;
                    }
                    try {
                        runtime.io().execute(remove);
                    } catch (java.util.concurrent.RejectedExecutionException closing) {
                        // the broker is closing: the directory is removed at the next start
                    }
                });
    }

    /** The log settings of a log cache (a replica's log uses the same). */
    public static LogConfig logConfig(CacheConfig config) {
        return LogConfig.builder()
                .segmentBytes(config.segmentBytes())
                .maxPayloadBytes(ChangeCodec.maxPayloadBytes(config.maxValueBytes()))
                .fsyncPolicy(switch (config.fsync()) {
                    case ON_COMMIT -> FsyncPolicy.onCommit();
                    case PERIODIC -> FsyncPolicy.periodic();
                    case NONE -> FsyncPolicy.none();
                })
                .build();
    }

    private void checkOpen() throws FelixException {
        if (closed) {
            throw FelixError.of(ErrorCode.UNAVAILABLE, "the node's caches are closed").toException();
        }
    }
}
