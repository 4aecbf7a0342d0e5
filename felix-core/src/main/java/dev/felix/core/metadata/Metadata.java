package dev.felix.core.metadata;

import dev.felix.core.FelixException;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.cache.CacheConfig;
import dev.felix.core.cache.CacheName;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What exists on a node or cluster: tenants, their namespaces, and the streams and caches in them.
 *
 * <p><b>Threads.</b> Thread-safe. Reads are local and quick (a single node reads one small file the first
 * time a name is asked for, then serves it from memory; a cluster node reads its replica of the state
 * machine), so the data path may call them. Writes complete their future once the change is durable
 * (fsynced; in a cluster, committed by a majority): never wait for one on an event loop.
 *
 * <p><b>Rules.</b> Tenants are registered explicitly ({@link #createTenant}; a broker registers the tenants
 * its authentication names), never inferred from data. Creating a stream or cache registers its namespace
 * (an explicit act of an operator) but needs its tenant to exist. Creating what exists with the same
 * definition is a no-op returning the existing record; with another definition it fails with
 * {@code already_exists}. Each created stream or cache gets a fresh uid.
 */
public interface Metadata extends AutoCloseable {

    boolean tenantExists(String tenant);

    boolean namespaceExists(String tenant, String namespace);

    /** Registered tenants, sorted. */
    List<String> tenants();

    /** Registers {@code tenant} (idempotent). */
    CompletableFuture<Void> createTenant(String tenant);

    /** The stream named {@code name}, if it exists. */
    Optional<StreamRecord> stream(StreamName name) throws FelixException;

    /** Streams of {@code tenant} (and {@code namespace}, if not null), sorted by name. */
    List<StreamRecord> streams(String tenant, String namespace) throws FelixException;

    /**
     * Creates a stream; fails with {@code not_found} (its tenant is not registered) or {@code already_exists}
     * (same name, other definition).
     */
    CompletableFuture<StreamRecord> createStream(StreamName name, StreamConfig config);

    /** Deletes the definition of a stream; fails with {@code not_found} if there is none. */
    CompletableFuture<StreamRecord> deleteStream(StreamName name);

    /** The cache named {@code name}, if it exists. */
    Optional<CacheRecord> cache(CacheName name) throws FelixException;

    /** Caches of {@code tenant} (and {@code namespace}, if not null), sorted by name. */
    List<CacheRecord> caches(String tenant, String namespace) throws FelixException;

    /** Creates a cache; fails as {@link #createStream}. */
    CompletableFuture<CacheRecord> createCache(CacheName name, CacheConfig config);

    /** Deletes the definition of a cache; fails with {@code not_found} if there is none. */
    CompletableFuture<CacheRecord> deleteCache(CacheName name);

    /**
     * Whether this node's reads may trail what exists: in a cluster a node applies the metadata log a moment
     * after the node that served a create, so a name it does not know yet may already exist. A single node's
     * reads are always current.
     */
    default boolean readsMayLag() {
        return false;
    }

    /**
     * Brings this node's reads up to every change the cluster had committed when this was called: the barrier a
     * node passes before it answers that a name does not exist ({@code not_found}). Never fails; when the cluster
     * cannot say how far it is within a bounded time, it completes anyway and reads stay as they are. Completes at
     * once where {@link #readsMayLag()} is false. Never wait for it on an event loop: compose on it.
     */
    default CompletableFuture<Void> catchUp() {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    default void close() {
    }
}
