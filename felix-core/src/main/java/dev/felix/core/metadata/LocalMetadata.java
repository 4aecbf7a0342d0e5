package dev.felix.core.metadata;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.cache.CacheConfig;
import dev.felix.core.cache.CacheName;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metadata of a single node, in small files under its data directory (or only in memory when it has
 * none):
 * <pre>
 * &lt;data&gt;/tenants/&lt;tenant&gt;.tenant                       a registered tenant
 * &lt;data&gt;/tenants/&lt;tenant&gt;/&lt;namespace&gt;.namespace        a registered namespace
 * &lt;data&gt;/streams/&lt;tenant&gt;/&lt;namespace&gt;/&lt;stream&gt;.stream  a stream definition (with its uid)
 * &lt;data&gt;/caches/&lt;tenant&gt;/&lt;namespace&gt;/&lt;cache&gt;.cache     a cache definition (with its uid)
 * </pre>
 * Nothing is read at construction; a definition is read the first time its name is asked for and kept in
 * memory. Data directories written before tenants were registered (definitions without a tenant file)
 * are adopted: the first look-up of such a tenant or namespace registers it and says so in the log.
 *
 * <p><b>Threads.</b> Thread-safe: reads are map look-ups (or one file read on a miss); writes are serialised
 * and complete once the file is durable. Futures complete on the calling thread.
 */
public final class LocalMetadata implements Metadata {

    private static final Logger LOG = LoggerFactory.getLogger(LocalMetadata.class);

    private final DefinitionFiles tenantFiles;
    private final DefinitionFiles namespaceFiles;
    private final DefinitionFiles streamFiles;
    private final DefinitionFiles cacheFiles;
    private final SecureRandom random = new SecureRandom();
    private final Object writeLock = new Object();
    /** Runs writes (file I/O with fsyncs) off the caller's thread; null in memory. */
    private final java.util.concurrent.ExecutorService writes;
    private final ConcurrentHashMap<String, Boolean> tenants = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Boolean> namespaces = new ConcurrentHashMap<>();
    private final Definitions<StreamName, StreamConfig, StreamRecord> streams;
    private final Definitions<CacheName, CacheConfig, CacheRecord> caches;

    private LocalMetadata(Path dataDir) {
        if (dataDir == null) {
            tenantFiles = namespaceFiles = streamFiles = cacheFiles = null;
            writes = null;
        } else {
            writes = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "felix-metadata");
                t.setDaemon(true);
                return t;
            });
            tenantFiles = new DefinitionFiles(dataDir.resolve("tenants"), ".tenant");
            namespaceFiles = new DefinitionFiles(dataDir.resolve("tenants"), ".namespace");
            streamFiles = new DefinitionFiles(dataDir.resolve("streams"), ".stream");
            cacheFiles = new DefinitionFiles(dataDir.resolve("caches"), ".cache");
        }
        streams = new Definitions<>("stream", streamFiles, STREAMS);
        caches = new Definitions<>("cache", cacheFiles, CACHES);
    }

    /** Metadata stored under {@code dataDir}. */
    public static LocalMetadata at(Path dataDir) {
        return new LocalMetadata(dataDir);
    }

    /** Metadata kept in memory only (a node without a data directory). */
    public static LocalMetadata inMemory() {
        return new LocalMetadata(null);
    }

    // ------------------------------------------------------------------ tenants and namespaces

    @Override
    public boolean tenantExists(String tenant) {
        if (tenants.containsKey(tenant)) {
            return true;
        }
        if (tenantFiles == null) {
            return false;
        }
        if (tenantFiles.exists(tenant)) {
            tenants.put(tenant, Boolean.TRUE);
            return true;
        }
        if (streamFiles.directoryExists(tenant) || cacheFiles.directoryExists(tenant)) {
            LOG.info("tenant '{}' has stored streams or caches but was never registered (a data directory from an"
                    + " earlier version): registering it", tenant);
            registerTenant(tenant);
            return true;
        }
        return false;
    }

    @Override
    public boolean namespaceExists(String tenant, String namespace) {
        String key = tenant + "/" + namespace;
        if (namespaces.containsKey(key)) {
            return true;
        }
        if (namespaceFiles == null || !tenantExists(tenant)) {
            return false;
        }
        if (namespaceFiles.exists(tenant, namespace)) {
            namespaces.put(key, Boolean.TRUE);
            return true;
        }
        if (streamFiles.directoryExists(tenant, namespace) || cacheFiles.directoryExists(tenant, namespace)) {
            registerNamespace(tenant, namespace);
            return true;
        }
        return false;
    }

    @Override
    public List<String> tenants() {
        TreeSet<String> all = new TreeSet<>(tenants.keySet());
        if (tenantFiles != null) {
            all.addAll(tenantFiles.names());
        }
        return new ArrayList<>(all);
    }

    @Override
    public CompletableFuture<Void> createTenant(String tenant) {
        try {
            StreamName.checkPart("tenant", tenant);
        } catch (IllegalArgumentException e) {
            return failed(ErrorCode.BAD_REQUEST, e.getMessage());
        }
        return write(() -> {
            try {
                registerTenant(tenant);
                return CompletableFuture.completedFuture(null);
            } catch (UncheckedIOException e) {
                return failed(ErrorCode.UNAVAILABLE, e.getMessage());
            }
        });
    }

    /** Registers a tenant durably, on the calling thread. */
    private void registerTenant(String tenant) {
        synchronized (writeLock) {
            if (tenantFiles != null && !tenantFiles.exists(tenant)) {
                Properties p = new Properties();
                p.setProperty("created_ms", Long.toString(System.currentTimeMillis()));
                tenantFiles.store(p, "felix tenant " + tenant, tenant);
            }
            tenants.put(tenant, Boolean.TRUE);
        }
    }

    /**
     * Runs a write on the metadata thread (its fsyncs must not hold up an event loop); in memory, at once.
     * Writes are serialised: the single thread runs them in order.
     */
    private <T> CompletableFuture<T> write(java.util.function.Supplier<CompletableFuture<T>> op) {
        if (writes == null) {
            return op.get();
        }
        try {
            return CompletableFuture.supplyAsync(op, writes).thenCompose(f -> f);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return failed(ErrorCode.UNAVAILABLE, "metadata is closed");
        }
    }

    @Override
    public void close() {
        if (writes != null) {
            writes.shutdown();
            try {
                writes.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Registers a namespace of an existing tenant; caller holds nothing (takes the write lock). */
    private void registerNamespace(String tenant, String namespace) {
        synchronized (writeLock) {
            if (namespaceFiles != null && !namespaceFiles.exists(tenant, namespace)) {
                Properties p = new Properties();
                p.setProperty("created_ms", Long.toString(System.currentTimeMillis()));
                namespaceFiles.store(p, "felix namespace " + tenant + "/" + namespace, tenant, namespace);
            }
            namespaces.put(tenant + "/" + namespace, Boolean.TRUE);
        }
    }

    // ------------------------------------------------------------------ streams and caches

    @Override
    public Optional<StreamRecord> stream(StreamName name) throws FelixException {
        return streams.get(name);
    }

    @Override
    public List<StreamRecord> streams(String tenant, String namespace) throws FelixException {
        return streams.list(tenant, namespace);
    }

    @Override
    public CompletableFuture<StreamRecord> createStream(StreamName name, StreamConfig config) {
        return streams.create(name, config);
    }

    @Override
    public CompletableFuture<StreamRecord> deleteStream(StreamName name) {
        return streams.delete(name);
    }

    @Override
    public Optional<CacheRecord> cache(CacheName name) throws FelixException {
        return caches.get(name);
    }

    @Override
    public List<CacheRecord> caches(String tenant, String namespace) throws FelixException {
        return caches.list(tenant, namespace);
    }

    @Override
    public CompletableFuture<CacheRecord> createCache(CacheName name, CacheConfig config) {
        return caches.create(name, config);
    }

    @Override
    public CompletableFuture<CacheRecord> deleteCache(CacheName name) {
        return caches.delete(name);
    }

    /**
     * The definitions of one kind of resource (streams, or caches): known ones in memory, each stored in its
     * own file, read on first use. What differs between the kinds is in {@link Codec}.
     *
     * @param <N> the name type
     * @param <C> the configuration type
     * @param <R> the record type
     */
    private final class Definitions<N, C, R> {
        private final String kind;
        private final DefinitionFiles files;
        private final Codec<N, C, R> codec;
        private final ConcurrentHashMap<N, R> known = new ConcurrentHashMap<>();

        Definitions(String kind, DefinitionFiles files, Codec<N, C, R> codec) {
            this.kind = kind;
            this.files = files;
            this.codec = codec;
        }

        Optional<R> get(N name) throws FelixException {
            R r = known.get(name);
            if (r != null || files == null) {
                return Optional.ofNullable(r);
            }
            String[] parts = codec.parts(name);
            Optional<Properties> stored;
            try {
                stored = files.load(parts);
            } catch (UncheckedIOException e) {
                throw FelixError.of(ErrorCode.UNAVAILABLE, "cannot read the " + kind + " definition: "
                        + e.getMessage()).toException();
            }
            if (stored.isEmpty()) {
                return Optional.empty();
            }
            try {
                r = codec.record(name, codec.decode(stored.get()), DefinitionCodecs.uid(stored.get()));
            } catch (RuntimeException e) {
                throw FelixError.of(ErrorCode.CORRUPTION, kind + " definition " + files.file(parts) + " is invalid: "
                        + e.getMessage()).toException();
            }
            R raced = known.putIfAbsent(name, r);
            return Optional.of(raced != null ? raced : r);
        }

        List<R> list(String tenant, String namespace) throws FelixException {
            TreeSet<String> names = new TreeSet<>();
            for (N n : known.keySet()) {
                String[] p = codec.parts(n);
                if (p[0].equals(tenant) && (namespace == null || p[1].equals(namespace))) {
                    names.add(p[1] + "/" + p[2]);
                }
            }
            if (files != null) {
                for (String ns : namespace == null ? files.directories(tenant) : List.of(namespace)) {
                    for (String n : files.names(tenant, ns)) {
                        names.add(ns + "/" + n);
                    }
                }
            }
            List<R> out = new ArrayList<>();
            for (String n : names) {
                int slash = n.indexOf('/');
                N name;
                try {
                    name = codec.name(tenant, n.substring(0, slash), n.substring(slash + 1));
                } catch (IllegalArgumentException notOurs) {
                    continue; // a file this store did not write
                }
                get(name).ifPresent(out::add);
            }
            return out;
        }

        CompletableFuture<R> create(N name, C config) {
            return write(() -> createNow(name, config));
        }

        private CompletableFuture<R> createNow(N name, C config) {
            try {
                synchronized (writeLock) {
                    Optional<R> existing = get(name);
                    if (existing.isPresent()) {
                        C had = codec.config(existing.get());
                        if (!had.equals(config)) {
                            return failed(ErrorCode.ALREADY_EXISTS, kind + " " + name
                                    + " exists with a different definition (" + codec.describe(had) + ")");
                        }
                        return CompletableFuture.completedFuture(existing.get());
                    }
                    String[] parts = codec.parts(name);
                    checkTenant(parts[0]);
                    registerNamespace(parts[0], parts[1]);
                    R r = codec.record(name, config, newUid());
                    if (files != null) {
                        files.store(codec.encode(config, codec.uid(r)), "felix " + kind + " " + name, parts);
                    }
                    known.put(name, r);
                    return CompletableFuture.completedFuture(r);
                }
            } catch (FelixException e) {
                return CompletableFuture.failedFuture(e);
            } catch (UncheckedIOException e) {
                return failed(ErrorCode.UNAVAILABLE, "cannot store the definition of " + kind + " " + name + ": "
                        + e.getMessage());
            }
        }

        CompletableFuture<R> delete(N name) {
            return write(() -> deleteNow(name));
        }

        private CompletableFuture<R> deleteNow(N name) {
            try {
                synchronized (writeLock) {
                    Optional<R> existing = get(name);
                    if (existing.isEmpty()) {
                        return failed(ErrorCode.NOT_FOUND, kind + " '" + name + "' not found");
                    }
                    if (files != null) {
                        files.delete(codec.parts(name));
                    }
                    known.remove(name);
                    return CompletableFuture.completedFuture(existing.get());
                }
            } catch (FelixException e) {
                return CompletableFuture.failedFuture(e);
            } catch (UncheckedIOException e) {
                return failed(ErrorCode.UNAVAILABLE, "cannot delete the definition of " + kind + " " + name + ": "
                        + e.getMessage());
            }
        }
    }

    /** How one kind of definition is named, stored and described. */
    private interface Codec<N, C, R> {
        String[] parts(N name);

        N name(String tenant, String namespace, String resource);

        C decode(Properties p);

        Properties encode(C config, long uid);

        R record(N name, C config, long uid);

        C config(R record);

        long uid(R record);

        String describe(C config);
    }

    private static final Codec<StreamName, StreamConfig, StreamRecord> STREAMS = new Codec<>() {
        @Override
        public String[] parts(StreamName n) {
            return new String[] {n.tenant(), n.namespace(), n.stream()};
        }

        @Override
        public StreamName name(String tenant, String namespace, String resource) {
            return new StreamName(tenant, namespace, resource);
        }

        @Override
        public StreamConfig decode(Properties p) {
            return DefinitionCodecs.decodeStream(p);
        }

        @Override
        public Properties encode(StreamConfig c, long uid) {
            return DefinitionCodecs.encode(c, uid);
        }

        @Override
        public StreamRecord record(StreamName n, StreamConfig c, long uid) {
            return new StreamRecord(n, c, uid);
        }

        @Override
        public StreamConfig config(StreamRecord r) {
            return r.config();
        }

        @Override
        public long uid(StreamRecord r) {
            return r.uid();
        }

        @Override
        public String describe(StreamConfig c) {
            return "shards=" + c.shards() + ", durable=" + c.durable()
                    + (c.durable() ? ", fsync=" + c.fsync().wireName() : "");
        }
    };

    private static final Codec<CacheName, CacheConfig, CacheRecord> CACHES = new Codec<>() {
        @Override
        public String[] parts(CacheName n) {
            return new String[] {n.tenant(), n.namespace(), n.cache()};
        }

        @Override
        public CacheName name(String tenant, String namespace, String resource) {
            return new CacheName(tenant, namespace, resource);
        }

        @Override
        public CacheConfig decode(Properties p) {
            return DefinitionCodecs.decodeCache(p);
        }

        @Override
        public Properties encode(CacheConfig c, long uid) {
            return DefinitionCodecs.encode(c, uid);
        }

        @Override
        public CacheRecord record(CacheName n, CacheConfig c, long uid) {
            return new CacheRecord(n, c, uid);
        }

        @Override
        public CacheConfig config(CacheRecord r) {
            return r.config();
        }

        @Override
        public long uid(CacheRecord r) {
            return r.uid();
        }

        @Override
        public String describe(CacheConfig c) {
            return c.backing().wireName();
        }
    };

    // ------------------------------------------------------------------ helpers

    private void checkTenant(String tenant) throws FelixException {
        if (!tenantExists(tenant)) {
            throw FelixError.of(ErrorCode.NOT_FOUND, "tenant '" + tenant + "' not found").toException();
        }
    }

    private long newUid() {
        long v;
        do {
            v = random.nextLong();
        } while (v == 0);
        return v;
    }

    private static <T> CompletableFuture<T> failed(ErrorCode code, String message) {
        return CompletableFuture.failedFuture(FelixError.of(code, message).toException());
    }

}
