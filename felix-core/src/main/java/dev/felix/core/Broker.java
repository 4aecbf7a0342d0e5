package dev.felix.core;

import dev.felix.core.cache.CacheRuntime;
import dev.felix.core.cache.Caches;
import dev.felix.core.catalog.StreamCatalog;
import dev.felix.core.stream.Stream;
import dev.felix.core.stream.StreamFactory;
import dev.felix.core.stream.StreamInfo;
import dev.felix.storage.StorageRuntime;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The broker core: the registry of tenants, namespaces and streams, and the threads that run shard
 * writers. Plain Java, no network: a server adapts the wire to it, and tests or an in-process client
 * use it directly.
 *
 * <p>Thread-safe. Streams are created explicitly ({@link #createStream}) or, with
 * {@link CoreConfig#autoCreate()}, as ephemeral single-shard streams on first use.
 *
 * <p><b>Boot cost does not grow with stored data.</b> With storage configured, explicitly created
 * stream definitions are kept in a {@link StreamCatalog} and loaded when a stream is first named;
 * durable shards open their logs on first use. Constructing a broker reads no definition and opens no
 * log.
 */
public final class Broker implements AutoCloseable {

    /** How long {@link #close()} waits for shards to answer queued work and close their logs. */
    static final long CLOSE_TIMEOUT_SECONDS = 30;

    private final CoreConfig config;
    private final CoreMetrics metrics = new CoreMetrics();
    private final ExecutorService shardThreads;
    private final StorageRuntime storage;
    private final StreamCatalog catalog;
    private final StreamFactory factory;
    private final ConcurrentHashMap<StreamName, Stream> streams = new ConcurrentHashMap<>();
    private final ExecutorService cacheIo;
    private final java.util.concurrent.ScheduledExecutorService cacheTimer;
    private final Caches caches;
    private final Object createLock = new Object();
    private volatile boolean closed;

    public Broker(CoreConfig config) {
        this.config = config;
        int threads = config.shardThreads() > 0 ? config.shardThreads() : Runtime.getRuntime().availableProcessors();
        this.shardThreads = Executors.newFixedThreadPool(threads, new NamedThreads("felix-shard"));
        CoreConfig.Storage s = config.storage();
        if (s != null) {
            this.storage = StorageRuntime.builder().flushThreads(s.flushThreads()).threadNamePrefix("felix-storage")
                    .build();
            this.catalog = new StreamCatalog(s.dataDir().resolve("streams"));
        } else {
            this.storage = null;
            this.catalog = null;
        }
        this.factory = new StreamFactory(config, metrics, shardThreads, storage,
                s == null ? null : s.dataDir().resolve("logs"));
        // Caches share the shard threads for their single writers; snapshots are written on their own
        // thread (blocking file I/O), and one timer sweeps expired entries.
        this.cacheIo = Executors.newSingleThreadExecutor(new NamedThreads("felix-cache-io"));
        this.cacheTimer = Executors.newSingleThreadScheduledExecutor(new NamedThreads("felix-cache-sweep"));
        this.caches = new Caches(new CacheRuntime(shardThreads, cacheIo, cacheTimer, java.time.Clock.systemUTC(),
                storage, s == null ? null : s.dataDir(), CacheRuntime.DEFAULT_SWEEP_INTERVAL));
    }

    /** The node's caches. */
    public Caches caches() {
        return caches;
    }

    public CoreConfig config() {
        return config;
    }

    public CoreMetrics metrics() {
        return metrics;
    }

    /** The node's storage runtime (storage metrics), or null without storage. */
    public StorageRuntime storage() {
        return storage;
    }

    /**
     * Creates a stream. Creating one that exists with the same definition returns it (idempotent);
     * with a different definition fails with {@code already_exists}. With storage configured the
     * definition is stored, so the stream exists again after a restart (an ephemeral one empty, in a
     * new incarnation).
     */
    public Stream createStream(StreamName name, StreamConfig streamConfig) throws FelixException {
        checkOpen();
        if (streamConfig.durable() && storage == null) {
            throw new FelixException(ErrorCode.BAD_REQUEST,
                    "durable streams need a data directory; this broker runs without storage");
        }
        synchronized (createLock) {
            Stream existing = findOrLoad(name);
            if (existing != null) {
                if (!existing.config().equals(streamConfig)) {
                    throw new FelixException(ErrorCode.ALREADY_EXISTS, "stream " + name
                            + " exists with a different definition (" + describe(existing.config()) + ")");
                }
                return existing;
            }
            if (catalog != null) {
                try {
                    catalog.store(name, streamConfig);
                } catch (RuntimeException e) {
                    throw new FelixException(ErrorCode.UNAVAILABLE, "cannot store the definition of " + name + ": "
                            + e.getMessage());
                }
            }
            Stream created = factory.create(name, streamConfig);
            streams.put(name, created);
            return created;
        }
    }

    /**
     * The named stream, loading a stored definition on first use; with auto-create on, an ephemeral one
     * is created if it is not known. Otherwise a missing stream is {@code not_found}, naming which part
     * (tenant, namespace, stream) is unknown.
     */
    public Stream stream(StreamName name) throws FelixException {
        checkOpen();
        Stream s = streams.get(name);
        if (s != null) {
            return s;
        }
        synchronized (createLock) {
            s = findOrLoad(name);
            if (s != null) {
                return s;
            }
            if (config.autoCreate()) {
                s = factory.create(name, StreamConfig.ephemeral());
                streams.put(name, s);
                return s;
            }
        }
        throw new FelixException(ErrorCode.NOT_FOUND, notFoundMessage(name));
    }

    /** The named stream if it exists (loads a stored definition; never creates). */
    public Optional<Stream> find(StreamName name) {
        Stream s = streams.get(name);
        if (s != null || catalog == null) {
            return Optional.ofNullable(s);
        }
        synchronized (createLock) {
            return Optional.ofNullable(findOrLoad(name));
        }
    }

    /**
     * Streams of a tenant, optionally of one namespace, sorted by name: those in memory and, with
     * storage, every stored definition (loading them opens no log).
     */
    public List<StreamInfo> list(String tenant, String namespace) {
        if (catalog != null) {
            for (StreamName n : catalog.list(tenant, namespace)) {
                find(n);
            }
        }
        List<StreamInfo> result = new ArrayList<>();
        for (Stream s : streams.values()) {
            StreamName n = s.name();
            if (n.tenant().equals(tenant) && (namespace == null || n.namespace().equals(namespace))) {
                result.add(s.info());
            }
        }
        result.sort(Comparator.comparing(i -> i.name().toString()));
        return result;
    }

    /** Every stream in memory, for metrics. */
    public List<Stream> streams() {
        return List.copyOf(streams.values());
    }

    /**
     * Ends all subscriptions, answers queued publishes (forcing what {@code on_commit} owes), closes
     * every open log and stops the shard threads.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        caches.close();
        List<CompletableFuture<Void>> closing = new ArrayList<>();
        for (Stream s : streams.values()) {
            closing.add(StreamFactory.close(s));
        }
        try {
            CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new))
                    .get(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            // Timed out or interrupted: stop anyway; logs not closed were synced by their own policy.
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
        cacheTimer.shutdownNow();
        cacheIo.shutdown();
        shardThreads.shutdown();
        try {
            cacheIo.awaitTermination(5, TimeUnit.SECONDS);
            if (!shardThreads.awaitTermination(5, TimeUnit.SECONDS)) {
                shardThreads.shutdownNow();
            }
        } catch (InterruptedException e) {
            shardThreads.shutdownNow();
            Thread.currentThread().interrupt();
        }
        if (storage != null) {
            storage.close();
        }
    }

    /** A stream in memory, or loaded from its stored definition; null if neither. Under createLock. */
    private Stream findOrLoad(StreamName name) {
        Stream s = streams.get(name);
        if (s != null || catalog == null) {
            return s;
        }
        Optional<StreamConfig> stored = catalog.load(name);
        if (stored.isEmpty()) {
            return null;
        }
        s = factory.create(name, stored.get());
        streams.put(name, s);
        return s;
    }

    private void checkOpen() throws FelixException {
        if (closed) {
            throw new FelixException(ErrorCode.UNAVAILABLE, "the broker is shutting down");
        }
    }

    private String notFoundMessage(StreamName name) {
        boolean tenant = catalog != null && catalog.exists(name.tenant(), null);
        boolean namespace = catalog != null && catalog.exists(name.tenant(), name.namespace());
        for (StreamName n : streams.keySet()) {
            if (n.tenant().equals(name.tenant())) {
                tenant = true;
                if (n.namespace().equals(name.namespace())) {
                    namespace = true;
                }
            }
        }
        if (!tenant) {
            return "tenant '" + name.tenant() + "' not found";
        }
        if (!namespace) {
            return "namespace '" + name.tenant() + "/" + name.namespace() + "' not found";
        }
        return "stream '" + name + "' not found";
    }

    private static String describe(StreamConfig c) {
        return "shards=" + c.shards() + ", durable=" + c.durable()
                + (c.durable() ? ", fsync=" + c.fsync().wireName() : "");
    }

    /** Daemon threads with a readable name, so thread dumps show which pool is which. */
    static final class NamedThreads implements ThreadFactory {
        private final String prefix;
        private final AtomicInteger n = new AtomicInteger();

        NamedThreads(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        }
    }
}
