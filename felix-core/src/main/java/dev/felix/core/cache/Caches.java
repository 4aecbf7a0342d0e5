package dev.felix.core.cache;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.StreamConfig;
import dev.felix.storage.FsyncPolicy;
import dev.felix.storage.LogConfig;
import dev.felix.storage.LogId;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
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
 * The caches of one broker node: create and look up by {@link CacheName}, persist definitions, sweep TTLs,
 * close.
 *
 * <p><b>Boot cost does not grow with stored data.</b> Constructing this reads nothing. {@link #get} reads
 * one definition file the first time a cache is named; a log cache opens and replays its log only when it
 * is first used ({@link Cache#load()}, or any operation). Definitions live under
 * {@code <dataDir>/caches/<tenant>/<namespace>/<cache>.cache}; a log cache's directory is
 * {@code <dataDir>/logs/<LogId(tenant, namespace, "cache:" + cache, 0)>} (see {@link CacheLog}).
 *
 * <p><b>Thread-safety:</b> thread-safe. Creation is serialised (it may write a file); lookups of known
 * caches are a map read.
 */
public final class Caches implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Caches.class);

    /** How long {@link #close()} waits for the caches to flush and close their logs. */
    static final long CLOSE_WAIT_SECONDS = 30;

    private final CacheRuntime runtime;
    private final CacheCatalog catalog;
    private final ConcurrentHashMap<CacheName, Cache> caches = new ConcurrentHashMap<>();
    private final AtomicLong watchIds = new AtomicLong();
    private final Object createLock = new Object();
    private final ScheduledFuture<?> sweeper;
    private volatile boolean closed;

    public Caches(CacheRuntime runtime) {
        this.runtime = runtime;
        this.catalog = runtime.catalogRoot() == null ? null : new CacheCatalog(runtime.catalogRoot());
        long every = runtime.sweepInterval().toMillis();
        this.sweeper = runtime.timer() == null ? null
                : runtime.timer().scheduleWithFixedDelay(this::sweepAll, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * Creates the cache, or returns it if it exists with the same definition. The definition is stored
     * durably before this returns (when the node has a data directory).
     *
     * @throws FelixException {@code already_exists} (same name, another definition), {@code bad_request} (a
     *                        log cache on a node without storage), {@code unavailable} (closed, or the
     *                        definition could not be stored)
     */
    public Cache create(CacheName name, CacheConfig config) throws FelixException {
        checkOpen();
        if (config.backing() == CacheConfig.Backing.LOG && runtime.storage() == null) {
            throw FelixError.of(ErrorCode.BAD_REQUEST, "log caches need a data directory; this node runs without"
                    + " storage").toException();
        }
        synchronized (createLock) {
            Cache existing = lookup(name);
            if (existing != null) {
                if (!existing.config().equals(config)) {
                    throw FelixError.of(ErrorCode.ALREADY_EXISTS, "cache " + name + " exists with another"
                            + " definition (" + existing.config().backing().wireName() + ")").toException();
                }
                return existing;
            }
            if (catalog != null) {
                try {
                    catalog.store(name, config);
                } catch (UncheckedIOException e) {
                    throw FelixError.of(ErrorCode.UNAVAILABLE, e.getMessage()).toException();
                }
            }
            Cache cache = build(name, config);
            caches.put(name, cache);
            return cache;
        }
    }

    /**
     * The cache named {@code name} (its definition is read on first use; a log cache is not loaded yet).
     *
     * @throws FelixException {@code not_found}; {@code corruption} when its definition cannot be read
     */
    public Cache get(CacheName name) throws FelixException {
        Cache c = caches.get(name);
        if (c != null) {
            return c;
        }
        checkOpen();
        synchronized (createLock) {
            c = lookup(name);
        }
        if (c == null) {
            throw FelixError.of(ErrorCode.NOT_FOUND, "cache not found: " + name).toException();
        }
        return c;
    }

    /** The cache if it exists, as {@link #get} without the error. */
    public Optional<Cache> find(CacheName name) throws FelixException {
        try {
            return Optional.of(get(name));
        } catch (FelixException e) {
            if (e.code() == ErrorCode.NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Names of the caches of a tenant (and namespace, if not null), sorted; walks the definitions. */
    public List<CacheName> list(String tenant, String namespace) {
        TreeSet<String> seen = new TreeSet<>();
        List<CacheName> out = new ArrayList<>();
        List<CacheName> all = new ArrayList<>(caches.keySet());
        if (catalog != null) {
            all.addAll(catalog.list(tenant, namespace));
        }
        for (CacheName n : all) {
            if (n.tenant().equals(tenant) && (namespace == null || n.namespace().equals(namespace))
                    && seen.add(n.toString())) {
                out.add(n);
            }
        }
        out.sort((a, b) -> a.toString().compareTo(b.toString()));
        return out;
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

    /** Known or stored cache, registered on first sight; null if none. Caller holds createLock. */
    private Cache lookup(CacheName name) throws FelixException {
        Cache c = caches.get(name);
        if (c != null || catalog == null) {
            return c;
        }
        Optional<CacheConfig> stored;
        try {
            stored = catalog.load(name);
        } catch (UncheckedIOException e) {
            throw FelixError.of(ErrorCode.UNAVAILABLE, e.getMessage()).toException();
        } catch (IllegalStateException e) {
            throw FelixError.of(ErrorCode.CORRUPTION, e.getMessage()).toException();
        }
        if (stored.isEmpty()) {
            return null;
        }
        if (stored.get().backing() == CacheConfig.Backing.LOG && runtime.storage() == null) {
            throw FelixError.of(ErrorCode.UNAVAILABLE, "cache " + name + " is a log cache but this node runs"
                    + " without storage").toException();
        }
        c = build(name, stored.get());
        caches.put(name, c);
        return c;
    }

    private Cache build(CacheName name, CacheConfig config) {
        CacheLog log = null;
        if (config.backing() == CacheConfig.Backing.LOG) {
            LogId id = new LogId(name.tenant(), name.namespace(), "cache:" + name.cache(), 0);
            log = new CacheLog(name.toString(), id.resolve(runtime.logsRoot()), logConfig(config),
                    runtime.storage(), config.fsync() == StreamConfig.Fsync.ON_COMMIT);
        }
        return new Cache(name, config, log, runtime.writers(), runtime.io(), runtime.clock(),
                watchIds::incrementAndGet);
    }

    /** The log settings of a log cache. */
    static LogConfig logConfig(CacheConfig config) {
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
