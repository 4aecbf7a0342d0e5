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
    private final ConcurrentHashMap<String, Boolean> tenants = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Boolean> namespaces = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<StreamName, StreamRecord> streams = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<CacheName, CacheRecord> caches = new ConcurrentHashMap<>();

    private LocalMetadata(Path dataDir) {
        if (dataDir == null) {
            tenantFiles = namespaceFiles = streamFiles = cacheFiles = null;
        } else {
            tenantFiles = new DefinitionFiles(dataDir.resolve("tenants"), ".tenant");
            namespaceFiles = new DefinitionFiles(dataDir.resolve("tenants"), ".namespace");
            streamFiles = new DefinitionFiles(dataDir.resolve("streams"), ".stream");
            cacheFiles = new DefinitionFiles(dataDir.resolve("caches"), ".cache");
        }
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
            join(createTenant(tenant));
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
            synchronized (writeLock) {
                if (tenantFiles != null && !tenantFiles.exists(tenant)) {
                    Properties p = new Properties();
                    p.setProperty("created_ms", Long.toString(System.currentTimeMillis()));
                    tenantFiles.store(p, "felix tenant " + tenant, tenant);
                }
                tenants.put(tenant, Boolean.TRUE);
            }
            return CompletableFuture.completedFuture(null);
        } catch (IllegalArgumentException e) {
            return failed(ErrorCode.BAD_REQUEST, e.getMessage());
        } catch (UncheckedIOException e) {
            return failed(ErrorCode.UNAVAILABLE, e.getMessage());
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

    // ------------------------------------------------------------------ streams

    @Override
    public Optional<StreamRecord> stream(StreamName name) throws FelixException {
        StreamRecord known = streams.get(name);
        if (known != null || streamFiles == null) {
            return Optional.ofNullable(known);
        }
        Optional<Properties> stored = read(streamFiles, "stream", name.tenant(), name.namespace(), name.stream());
        if (stored.isEmpty()) {
            return Optional.empty();
        }
        StreamRecord r;
        try {
            r = new StreamRecord(name, DefinitionCodecs.decodeStream(stored.get()), DefinitionCodecs.uid(stored.get()));
        } catch (RuntimeException e) {
            throw FelixError.of(ErrorCode.CORRUPTION, "stream definition "
                    + streamFiles.file(name.tenant(), name.namespace(), name.stream()) + " is invalid: "
                    + e.getMessage()).toException();
        }
        StreamRecord raced = streams.putIfAbsent(name, r);
        return Optional.of(raced != null ? raced : r);
    }

    @Override
    public List<StreamRecord> streams(String tenant, String namespace) throws FelixException {
        TreeSet<String> names = new TreeSet<>();
        for (StreamName n : streams.keySet()) {
            if (n.tenant().equals(tenant) && (namespace == null || n.namespace().equals(namespace))) {
                names.add(n.namespace() + "/" + n.stream());
            }
        }
        if (streamFiles != null) {
            for (String ns : namespace == null ? streamFiles.directories(tenant) : List.of(namespace)) {
                for (String s : streamFiles.names(tenant, ns)) {
                    names.add(ns + "/" + s);
                }
            }
        }
        List<StreamRecord> out = new ArrayList<>();
        for (String n : names) {
            int slash = n.indexOf('/');
            StreamName name;
            try {
                name = new StreamName(tenant, n.substring(0, slash), n.substring(slash + 1));
            } catch (IllegalArgumentException notOurs) {
                continue; // a file this store did not write
            }
            stream(name).ifPresent(out::add);
        }
        return out;
    }

    @Override
    public CompletableFuture<StreamRecord> createStream(StreamName name, StreamConfig config) {
        try {
            synchronized (writeLock) {
                Optional<StreamRecord> existing = stream(name);
                if (existing.isPresent()) {
                    if (!existing.get().config().equals(config)) {
                        return failed(ErrorCode.ALREADY_EXISTS, "stream " + name + " exists with a different definition ("
                                + describe(existing.get().config()) + ")");
                    }
                    return CompletableFuture.completedFuture(existing.get());
                }
                checkTenant(name.tenant());
                registerNamespace(name.tenant(), name.namespace());
                StreamRecord r = new StreamRecord(name, config, newUid());
                if (streamFiles != null) {
                    streamFiles.store(DefinitionCodecs.encode(config, r.uid()), "felix stream " + name,
                            name.tenant(), name.namespace(), name.stream());
                }
                streams.put(name, r);
                return CompletableFuture.completedFuture(r);
            }
        } catch (FelixException e) {
            return CompletableFuture.failedFuture(e);
        } catch (UncheckedIOException e) {
            return failed(ErrorCode.UNAVAILABLE, "cannot store the definition of " + name + ": " + e.getMessage());
        }
    }

    @Override
    public CompletableFuture<StreamRecord> deleteStream(StreamName name) {
        try {
            synchronized (writeLock) {
                Optional<StreamRecord> existing = stream(name);
                if (existing.isEmpty()) {
                    return failed(ErrorCode.NOT_FOUND, "stream '" + name + "' not found");
                }
                if (streamFiles != null) {
                    streamFiles.delete(name.tenant(), name.namespace(), name.stream());
                }
                streams.remove(name);
                return CompletableFuture.completedFuture(existing.get());
            }
        } catch (FelixException e) {
            return CompletableFuture.failedFuture(e);
        } catch (UncheckedIOException e) {
            return failed(ErrorCode.UNAVAILABLE, "cannot delete the definition of " + name + ": " + e.getMessage());
        }
    }

    // ------------------------------------------------------------------ caches

    @Override
    public Optional<CacheRecord> cache(CacheName name) throws FelixException {
        CacheRecord known = caches.get(name);
        if (known != null || cacheFiles == null) {
            return Optional.ofNullable(known);
        }
        Optional<Properties> stored = read(cacheFiles, "cache", name.tenant(), name.namespace(), name.cache());
        if (stored.isEmpty()) {
            return Optional.empty();
        }
        CacheRecord r;
        try {
            r = new CacheRecord(name, DefinitionCodecs.decodeCache(stored.get()), DefinitionCodecs.uid(stored.get()));
        } catch (RuntimeException e) {
            throw FelixError.of(ErrorCode.CORRUPTION, "cache definition "
                    + cacheFiles.file(name.tenant(), name.namespace(), name.cache()) + " is invalid: "
                    + e.getMessage()).toException();
        }
        CacheRecord raced = caches.putIfAbsent(name, r);
        return Optional.of(raced != null ? raced : r);
    }

    @Override
    public List<CacheRecord> caches(String tenant, String namespace) throws FelixException {
        TreeSet<String> names = new TreeSet<>();
        for (CacheName n : caches.keySet()) {
            if (n.tenant().equals(tenant) && (namespace == null || n.namespace().equals(namespace))) {
                names.add(n.namespace() + "/" + n.cache());
            }
        }
        if (cacheFiles != null) {
            for (String ns : namespace == null ? cacheFiles.directories(tenant) : List.of(namespace)) {
                for (String c : cacheFiles.names(tenant, ns)) {
                    names.add(ns + "/" + c);
                }
            }
        }
        List<CacheRecord> out = new ArrayList<>();
        for (String n : names) {
            int slash = n.indexOf('/');
            CacheName name;
            try {
                name = new CacheName(tenant, n.substring(0, slash), n.substring(slash + 1));
            } catch (IllegalArgumentException notOurs) {
                continue;
            }
            cache(name).ifPresent(out::add);
        }
        return out;
    }

    @Override
    public CompletableFuture<CacheRecord> createCache(CacheName name, CacheConfig config) {
        try {
            synchronized (writeLock) {
                Optional<CacheRecord> existing = cache(name);
                if (existing.isPresent()) {
                    if (!existing.get().config().equals(config)) {
                        return failed(ErrorCode.ALREADY_EXISTS, "cache " + name + " exists with another definition ("
                                + existing.get().config().backing().wireName() + ")");
                    }
                    return CompletableFuture.completedFuture(existing.get());
                }
                checkTenant(name.tenant());
                registerNamespace(name.tenant(), name.namespace());
                CacheRecord r = new CacheRecord(name, config, newUid());
                if (cacheFiles != null) {
                    cacheFiles.store(DefinitionCodecs.encode(config, r.uid()), "felix cache " + name,
                            name.tenant(), name.namespace(), name.cache());
                }
                caches.put(name, r);
                return CompletableFuture.completedFuture(r);
            }
        } catch (FelixException e) {
            return CompletableFuture.failedFuture(e);
        } catch (UncheckedIOException e) {
            return failed(ErrorCode.UNAVAILABLE, "cannot store the definition of cache " + name + ": "
                    + e.getMessage());
        }
    }

    @Override
    public CompletableFuture<CacheRecord> deleteCache(CacheName name) {
        try {
            synchronized (writeLock) {
                Optional<CacheRecord> existing = cache(name);
                if (existing.isEmpty()) {
                    return failed(ErrorCode.NOT_FOUND, "cache '" + name + "' not found");
                }
                if (cacheFiles != null) {
                    cacheFiles.delete(name.tenant(), name.namespace(), name.cache());
                }
                caches.remove(name);
                return CompletableFuture.completedFuture(existing.get());
            }
        } catch (FelixException e) {
            return CompletableFuture.failedFuture(e);
        } catch (UncheckedIOException e) {
            return failed(ErrorCode.UNAVAILABLE, "cannot delete the definition of cache " + name + ": "
                    + e.getMessage());
        }
    }

    // ------------------------------------------------------------------ helpers

    private void checkTenant(String tenant) throws FelixException {
        if (!tenantExists(tenant)) {
            throw FelixError.of(ErrorCode.NOT_FOUND, "tenant '" + tenant + "' not found").toException();
        }
    }

    private static Optional<Properties> read(DefinitionFiles files, String what, String... parts)
            throws FelixException {
        try {
            return files.load(parts);
        } catch (UncheckedIOException e) {
            throw FelixError.of(ErrorCode.UNAVAILABLE, "cannot read the " + what + " definition: " + e.getMessage())
                    .toException();
        }
    }

    private long newUid() {
        long v;
        do {
            v = random.nextLong();
        } while (v == 0);
        return v;
    }

    private static String describe(StreamConfig c) {
        return "shards=" + c.shards() + ", durable=" + c.durable()
                + (c.durable() ? ", fsync=" + c.fsync().wireName() : "");
    }

    private static <T> CompletableFuture<T> failed(ErrorCode code, String message) {
        return CompletableFuture.failedFuture(FelixError.of(code, message).toException());
    }

    private static void join(CompletableFuture<?> f) {
        f.join();
    }
}
