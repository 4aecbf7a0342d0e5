package dev.felix.client;

import dev.felix.wire.Message;
import java.util.concurrent.atomic.AtomicLong;

/** Cache administration: create and describe. Each call is one request on its own stream. */
public final class CacheAdmin {

    private final FelixClient client;
    private final AtomicLong ids = new AtomicLong();

    CacheAdmin(FelixClient client) {
        this.client = client;
    }

    /** Creates a cache (idempotent for the same definition; {@code already_exists} otherwise). */
    public Message.CacheInfo create(CacheRef cache, CacheSpec spec) {
        return (Message.CacheInfo) request(new Message.CacheCreate(cache.tenant(), cache.namespace(), cache.cache(),
                spec.backing(), spec.defaultTtl() == null ? null : spec.defaultTtl().toMillis(), spec.maxEntries(),
                spec.fsync(), ids.incrementAndGet()));
    }

    /** Describes a cache: backing, TTL, capacity, entries, next change offset. */
    public Message.CacheInfo describe(CacheRef cache) {
        return (Message.CacheInfo) request(new Message.CacheDescribe(cache.tenant(), cache.namespace(), cache.cache(),
                ids.incrementAndGet()));
    }

    private Message request(Message request) {
        return OneShotRequest.send(client, request);
    }
}
