package dev.felix.client;

import dev.felix.wire.Message;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Cache administration: create, describe, list, drop. Each call is one request on its own stream.
 *
 * <p><b>Threads and buffers.</b> Thread-safe and stateless but for a request-id counter; each call runs on the
 * caller's thread, which waits for the reply (bounded by the request timeout). Frames are owned as in
 * {@code OneShotRequest}.
 */
public final class CacheAdmin {

    private final FelixClient client;
    private final AtomicLong ids = new AtomicLong();

    CacheAdmin(FelixClient client) {
        this.client = client;
    }

    /**
     * Creates a cache (idempotent for the same definition; {@code already_exists} otherwise). A refusal — such as
     * {@code quorum} asked of a single node — is a {@link FelixClientException} with the broker's code and text.
     */
    public Message.CacheInfo create(CacheRef cache, CacheSpec spec) {
        return (Message.CacheInfo) request(new Message.CacheCreate(cache.tenant(), cache.namespace(), cache.cache(),
                spec.backing(), spec.defaultTtl() == null ? null : spec.defaultTtl().toMillis(), spec.maxEntries(),
                spec.fsync(), ids.incrementAndGet(), spec.consistency()));
    }

    /**
     * Describes a cache: backing, TTL, capacity, entries, next change offset, and (from a clustered broker, or
     * when it is not {@code leader}) its consistency.
     */
    public Message.CacheInfo describe(CacheRef cache) {
        return (Message.CacheInfo) request(new Message.CacheDescribe(cache.tenant(), cache.namespace(), cache.cache(),
                ids.incrementAndGet()));
    }

    /** Caches of the client's tenant, of one namespace or (null) all, sorted by name. */
    public java.util.List<dev.felix.wire.CacheDescription> list(String namespace) {
        return ((Message.CacheListResult) request(new Message.CacheList(client.config().tenant(), namespace,
                ids.incrementAndGet()))).caches();
    }

    /**
     * Drops a cache and its data; {@code in_use} while it has watchers unless {@code force} (which ends their
     * watches); {@code not_found} if it does not exist.
     */
    public void drop(CacheRef cache, boolean force) {
        request(new Message.CacheDrop(cache.tenant(), cache.namespace(), cache.cache(), force, ids.incrementAndGet()));
    }

    private Message request(Message request) {
        return OneShotRequest.send(client, request);
    }
}
