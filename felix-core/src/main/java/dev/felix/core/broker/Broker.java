package dev.felix.core.broker;

import dev.felix.core.CoreConfig;
import dev.felix.core.CoreMetrics;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.cache.CacheRuntime;
import dev.felix.core.cache.Caches;
import dev.felix.core.metadata.LocalMetadata;
import dev.felix.core.metadata.Metadata;
import dev.felix.core.metadata.StreamRecord;
import dev.felix.core.routing.LocalRouter;
import dev.felix.core.routing.Router;
import dev.felix.core.stream.Stream;
import dev.felix.core.stream.StreamFactory;
import dev.felix.core.stream.StreamInfo;
import dev.felix.core.writer.GateFactory;
import dev.felix.core.writer.LogRef;
import dev.felix.storage.LogDirectories;
import dev.felix.storage.StorageException;
import dev.felix.storage.StorageRuntime;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The broker core of one node: its {@link Metadata} (what exists), the live {@link Stream}s and
 * {@link Caches}, the {@link Router} (who leads what) and the threads that run shard and cache writers.
 * Plain Java, no network: a server adapts the wire to it, and tests or an in-process client use it directly.
 *
 * <p><b>Threads.</b> Thread-safe. Look-ups ({@link #stream}, {@link #find}) are map reads after the first
 * use of a name. Creating and deleting return futures that complete once metadata has the change durably;
 * never wait for them on an event loop.
 *
 * <p><b>Boot cost does not grow with stored data.</b> Constructing a broker reads no definition and opens no
 * log: a stream comes alive the first time it is named, and durable shards open their logs on first use.
 *
 * <p><b>Dev mode</b> ({@link CoreConfig#autoCreate()}): naming an unknown stream creates an ephemeral
 * single-shard stream on the spot, held in memory only (it is not stored, so it does not come back after a
 * restart). With {@link CoreConfig#openTenants()}, creating a stream or cache of an unregistered tenant
 * registers the tenant.
 */
public final class Broker implements AutoCloseable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Broker.class);

    /** How long {@link #close()} waits for shards to answer queued work and close their logs. */
    static final long CLOSE_TIMEOUT_SECONDS = 30;

    private final CoreConfig config;
    private final CoreMetrics metrics = new CoreMetrics();
    private final ExecutorService shardThreads;
    private final StorageRuntime storage;
    private final Metadata metadata;
    private final Router router;
    private final StreamFactory factory;
    /** How durable shards commit; also told before a deleted unit's log directory is removed. */
    private final GateFactory gates;
    private final Path logsRoot;
    private final ConcurrentHashMap<StreamName, Stream> streams = new ConcurrentHashMap<>();
    private final ExecutorService background;
    private final java.util.concurrent.ScheduledExecutorService cacheTimer;
    private final Caches caches;
    private final Object lifecycleLock = new Object();
    private volatile boolean closed;

    /** A node with local metadata (files under the data directory, or memory without one). */
    public Broker(CoreConfig config) {
        this(config, config.storage() != null ? LocalMetadata.at(config.storage().dataDir()) : LocalMetadata.inMemory(),
                new LocalRouter());
    }

    /** A node with the given metadata and router, committing on local durability. */
    public Broker(CoreConfig config, Metadata metadata, Router router) {
        this(config, metadata, router, GateFactory.LOCAL);
    }

    /**
     * A node with the given metadata and router (a cluster member passes its replicated ones) whose durable
     * shards commit through {@code gates} (a cluster member's replication).
     */
    public Broker(CoreConfig config, Metadata metadata, Router router, GateFactory gates) {
        this.config = config;
        this.metadata = metadata;
        this.router = router;
        int threads = config.shardThreads() > 0 ? config.shardThreads() : Runtime.getRuntime().availableProcessors();
        this.shardThreads = Executors.newFixedThreadPool(threads, new NamedThreads("felix-shard"));
        CoreConfig.Storage s = config.storage();
        this.storage = s == null ? null
                : StorageRuntime.builder().flushThreads(s.flushThreads()).threadNamePrefix("felix-storage").build();
        this.logsRoot = s == null ? null : s.dataDir().resolve("logs");
        this.gates = gates;
        this.factory = new StreamFactory(config, metrics, shardThreads, storage, logsRoot, gates);
        // Snapshots and the removal of deleted logs run on their own thread (blocking file I/O); one timer
        // sweeps expired cache entries. Caches share the shard threads for their single writers.
        this.background = Executors.newSingleThreadExecutor(new NamedThreads("felix-background"));
        this.cacheTimer = Executors.newSingleThreadScheduledExecutor(new NamedThreads("felix-cache-sweep"));
        this.caches = new Caches(new CacheRuntime(shardThreads, background, cacheTimer, java.time.Clock.systemUTC(),
                storage, s == null ? null : s.dataDir(), CacheRuntime.DEFAULT_SWEEP_INTERVAL, gates), metadata,
                config.openTenants());
        if (logsRoot != null) {
            background.execute(() -> removeQuietly(() -> LogDirectories.removeDeleted(logsRoot), logsRoot));
        }
    }

    /** Where this node keeps every log directory ({@code <data_dir>/logs}); null without storage. */
    public Path logsRoot() {
        return logsRoot;
    }

    /** The node's caches. */
    public Caches caches() {
        return caches;
    }

    /** What exists. */
    public Metadata metadata() {
        return metadata;
    }

    /** Who leads each shard and cache. */
    public Router router() {
        return router;
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
     * Creates a stream. Creating one that exists with the same definition returns it (idempotent); with a
     * different definition fails with {@code already_exists}. The definition is stored (with storage), so
     * the stream exists again after a restart (an ephemeral one empty, in a new incarnation).
     */
    public CompletableFuture<Stream> createStreamAsync(StreamName name, StreamConfig streamConfig) {
        try {
            checkOpen();
            if (streamConfig.durable() && storage == null) {
                throw new FelixException(ErrorCode.BAD_REQUEST,
                        "durable streams need a data directory; this broker runs without storage");
            }
        } catch (FelixException e) {
            return CompletableFuture.failedFuture(e);
        }
        return registerTenant(name.tenant())
                .thenCompose(v -> metadata.createStream(name, streamConfig))
                .thenApply(this::live);
    }

    /** {@link #createStreamAsync}, waiting for it: for tests and tools, never on an event loop. */
    public Stream createStream(StreamName name, StreamConfig streamConfig) throws FelixException {
        return await(createStreamAsync(name, streamConfig));
    }

    /**
     * The named stream; with auto-create on, an ephemeral one is created if it is not known. Otherwise a
     * missing stream is {@code not_found}, naming which part (tenant, namespace, stream) is unknown.
     */
    public Stream stream(StreamName name) throws FelixException {
        checkOpen();
        Stream s = streams.get(name);
        if (s != null) {
            return s;
        }
        Optional<StreamRecord> stored = metadata.stream(name);
        if (stored.isPresent()) {
            return live(stored.get());
        }
        if (config.autoCreate()) {
            return streams.computeIfAbsent(name, n -> factory.create(n, StreamConfig.ephemeral(), 0));
        }
        throw new FelixException(ErrorCode.NOT_FOUND, notFoundMessage(name));
    }

    /** The named stream if it exists (never creates). */
    public Optional<Stream> find(StreamName name) throws FelixException {
        Stream s = streams.get(name);
        if (s != null) {
            return Optional.of(s);
        }
        return metadata.stream(name).map(this::live);
    }

    /**
     * Streams of a tenant, optionally of one namespace, sorted by name: every stored definition and the
     * streams created on first use (listing opens no log).
     */
    public List<StreamInfo> list(String tenant, String namespace) throws FelixException {
        for (StreamRecord r : metadata.streams(tenant, namespace)) {
            live(r);
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

    /**
     * Deletes a stream and its data: its definition first (durably: a crash after this never brings it
     * back), then its subscriptions end with {@code not_found}, queued publishes are refused, and its logs are
     * removed in the background. A re-created stream of the same name starts empty (a new uid). Refused with
     * {@code in_use} while it has subscribers, unless {@code force}.
     */
    public CompletableFuture<Void> deleteStream(StreamName name, boolean force) {
        Stream live;
        try {
            checkOpen();
            live = find(name).orElse(null);
        } catch (FelixException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (live != null && !force) {
            int subscribers = live.info().shards().stream().mapToInt(i -> i.subscribers()).sum();
            if (subscribers > 0) {
                return CompletableFuture.failedFuture(FelixError.of(ErrorCode.IN_USE, "stream " + name + " has "
                        + subscribers + " subscriber(s); delete it with force to end them").toException());
            }
        }
        boolean stored = live == null || live.uid() != 0 || metadataHas(name);
        CompletableFuture<?> definition = stored ? metadata.deleteStream(name)
                : CompletableFuture.completedFuture(null); // created on first use: nothing stored
        return definition.thenCompose(v -> {
            Stream s = streams.remove(name);
            if (s == null) {
                return CompletableFuture.<Void>completedFuture(null);
            }
            return s.close(FelixError.of(ErrorCode.NOT_FOUND, "stream " + name + " was deleted"))
                    .thenRun(() -> removeLogs(s));
        });
    }

    /**
     * Closes every stream and cache runtime on this node whose definition metadata no longer holds: in a
     * cluster a delete runs on the node that was asked, and every other node learns of it from metadata, so
     * a cluster member calls this after each metadata change. Such a stream ends its subscriptions with
     * {@code not_found}, refuses what is queued and has its logs on this node removed, exactly as
     * {@link #deleteStream} does on the node that deleted it; a cache likewise ({@link Caches#closeDeleted}).
     * A stream deleted and created again under the same name is a new uid: the old runtime closes, so the
     * next lookup opens the new one. Streams created on first use (uid 0) are never stored and never closed
     * here. Completes when the runtimes have closed.
     */
    public CompletableFuture<Void> closeDeleted() {
        List<CompletableFuture<Void>> closing = new ArrayList<>();
        for (Stream s : streams.values()) {
            if (s.uid() == 0 || stillDefined(s)) {
                continue;
            }
            if (streams.remove(s.name(), s)) {
                LOG.info("stream {} was deleted (uid {}); closing its runtime on this node", s.name(), s.uid());
                closing.add(s.close(FelixError.of(ErrorCode.NOT_FOUND, "stream " + s.name() + " was deleted"))
                        .thenRun(() -> removeLogs(s)));
            }
        }
        closing.add(caches.closeDeleted());
        return CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new));
    }

    /**
     * Closes the runtime of shard {@code shard} of {@code name} if it is in memory — its subscriptions end
     * with {@code reason}, queued publishes are refused with it, its log closes — leaving a fresh one that
     * opens the log on first use. A cluster member calls this when leadership of the shard changes.
     */
    public CompletableFuture<Void> reopenShard(StreamName name, int shard, FelixError reason) {
        Stream s = streams.get(name);
        if (s == null || shard < 0 || shard >= s.shardCount()) {
            return CompletableFuture.completedFuture(null);
        }
        return s.reopenShard(shard, reason);
    }

    /**
     * Where shard {@code shard} of a durable stream keeps its log on this node, and with which configuration:
     * a cluster member keeps a replica's copy there too, so the shard opens it when this node comes to lead.
     */
    public java.nio.file.Path logDirectory(StreamName name, int shard, long uid) {
        return factory.logDirectory(name, shard, uid);
    }

    /** The log configuration of a durable stream's shards. */
    public dev.felix.storage.LogConfig logConfig(StreamConfig streamConfig) {
        return factory.logConfig(streamConfig);
    }

    /**
     * Asks every shard in memory to copy into arrays the lent payloads its ring has kept since before
     * {@code cutoffNanos} ({@link dev.felix.core.stream.Shard#settleLent}); completes with the payload bytes copied.
     */
    public CompletableFuture<Long> settleLent(long cutoffNanos) {
        List<CompletableFuture<Long>> shards = new ArrayList<>();
        for (Stream s : streams.values()) {
            for (int i = 0; i < s.shardCount(); i++) {
                shards.add(s.shard(i).settleLent(cutoffNanos));
            }
        }
        return CompletableFuture.allOf(shards.toArray(CompletableFuture[]::new))
                .thenApply(v -> shards.stream().mapToLong(CompletableFuture::join).sum());
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
        synchronized (lifecycleLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
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
        background.shutdown();
        shardThreads.shutdown();
        try {
            background.awaitTermination(5, TimeUnit.SECONDS);
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
        metadata.close();
    }

    // ------------------------------------------------------------------ internals

    /** The live stream for a stored definition, created on first use. */
    private Stream live(StreamRecord r) {
        return streams.computeIfAbsent(r.name(), n -> factory.create(n, r.config(), r.uid()));
    }

    /** Whether metadata still defines {@code s} (same uid); unreadable metadata counts as defined. */
    private boolean stillDefined(Stream s) {
        try {
            return metadata.stream(s.name()).map(r -> r.uid() == s.uid()).orElse(false);
        } catch (FelixException e) {
            return true;
        }
    }

    private boolean metadataHas(StreamName name) {
        try {
            return metadata.stream(name).isPresent();
        } catch (FelixException e) {
            return true; // unreadable: let the delete report it
        }
    }

    /** With open tenants an unknown tenant is registered on create; otherwise metadata refuses it. */
    private CompletableFuture<Void> registerTenant(String tenant) {
        if (config.openTenants() && !metadata.tenantExists(tenant)) {
            return metadata.createTenant(tenant);
        }
        return CompletableFuture.completedFuture(null);
    }

    private void removeLogs(Stream s) {
        if (logsRoot == null || !s.config().durable()) {
            return;
        }
        for (int i = 0; i < s.shardCount(); i++) {
            Path dir = factory.logDirectory(s.name(), i, s.uid());
            // A cluster member's follower copy of the shard lives in the same directory: it closes first.
            gates.releaseCopy(new LogRef(LogRef.Kind.STREAM, s.name().toString(), s.uid(), i))
                    .whenComplete((v, e) -> removeInBackground(dir));
        }
    }

    private void removeInBackground(Path dir) {
        try {
            background.execute(() -> removeQuietly(() -> LogDirectories.delete(dir), dir));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the broker is closing: the directory is removed at the next start (its stream is gone from metadata)
        }
    }

    /** Runs a log-directory removal; a failure is logged (the leftover is removed on a later try), never thrown. */
    private static void removeQuietly(Runnable removal, Path where) {
        try {
            removal.run();
        } catch (StorageException e) {
            LOG.warn("could not remove a deleted log under {} (retried later): {}", where, e.getMessage());
        }
    }

    private void checkOpen() throws FelixException {
        if (closed) {
            throw new FelixException(ErrorCode.UNAVAILABLE, "the broker is shutting down");
        }
    }

    private String notFoundMessage(StreamName name) {
        if (!metadata.tenantExists(name.tenant())) {
            return "tenant '" + name.tenant() + "' not found";
        }
        if (!metadata.namespaceExists(name.tenant(), name.namespace())) {
            return "namespace '" + name.tenant() + "/" + name.namespace() + "' not found";
        }
        return "stream '" + name + "' not found";
    }

    /** Waits for a metadata future; unwraps its {@link FelixException}. */
    static <T> T await(CompletableFuture<T> f) throws FelixException {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FelixException(ErrorCode.UNAVAILABLE, "interrupted");
        } catch (ExecutionException e) {
            Throwable c = e.getCause() instanceof CompletionException && e.getCause().getCause() != null
                    ? e.getCause().getCause() : e.getCause();
            if (c instanceof FelixException fe) {
                throw fe;
            }
            throw new FelixException(ErrorCode.INTERNAL, String.valueOf(c));
        }
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
