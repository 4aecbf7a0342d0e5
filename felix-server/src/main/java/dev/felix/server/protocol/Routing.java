package dev.felix.server.protocol;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.StreamName;
import dev.felix.core.cache.Cache;
import dev.felix.core.cache.CacheName;
import dev.felix.core.routing.Leadership;
import dev.felix.core.stream.Shard;
import dev.felix.core.stream.Stream;
import java.util.concurrent.CompletableFuture;

/**
 * From a request's names to the shard or cache that serves it on this node — or the typed error that says
 * why not. Every handler that touches a shard or cache comes through here, so this is the one place where
 * the tenant is checked against the stream's authentication and where {@code not_leader} comes from (the
 * broker's {@link dev.felix.core.routing.Router}). Stateless; any thread.
 */
final class Routing {
    private Routing() {
    }

    /** A stream name in the authenticated tenant; {@code forbidden} or {@code bad_request} otherwise. */
    static StreamName streamName(String tenant, String tenantId, String namespace, String stream)
            throws FelixException {
        checkTenant(tenant, tenantId);
        try {
            return new StreamName(tenantId, namespace, stream);
        } catch (IllegalArgumentException e) {
            throw new FelixException(ErrorCode.BAD_REQUEST, e.getMessage());
        }
    }

    /** A cache name in the authenticated tenant; {@code forbidden} or {@code bad_request} otherwise. */
    static CacheName cacheName(String tenant, String tenantId, String namespace, String cache) throws FelixException {
        checkTenant(tenant, tenantId);
        try {
            return new CacheName(tenantId, namespace, cache);
        } catch (IllegalArgumentException e) {
            throw new FelixException(ErrorCode.BAD_REQUEST, e.getMessage());
        }
    }

    /**
     * The shard a publish goes to: {@code shardIndex} if given, else by {@code key} (round-robin without one),
     * provided this node leads it.
     */
    static Shard shardToWrite(ServerContext context, StreamName name, String key, Integer shardIndex)
            throws FelixException {
        Stream stream = context.broker.stream(name);
        Shard shard;
        if (shardIndex != null) {
            shard = shardOf(stream, shardIndex);
        } else {
            shard = stream.shardFor(key);
        }
        checkLeads(context, name, shard.index());
        return shard;
    }

    /** Shard {@code index} of {@code stream}; {@code bad_request} when there is no such shard. */
    static Shard shardOf(Stream stream, int index) throws FelixException {
        if (index < 0 || index >= stream.shardCount()) {
            throw new FelixException(ErrorCode.BAD_REQUEST, "stream " + stream.name() + " has " + stream.shardCount()
                    + " shards; there is no shard " + Integer.toUnsignedString(index));
        }
        return stream.shard(index);
    }

    /** Fails unless this node leads shard {@code index} of {@code name}. */
    static void checkLeads(ServerContext context, StreamName name, int index) throws FelixException {
        Leadership l = context.broker.router().shard(name, index);
        if (!(l instanceof Leadership.Here)) {
            throw refusal(l, "shard " + name + "/" + index).toException();
        }
    }

    /** The cache named by a request, provided this node leads it; reads never create ({@code not_found}). */
    static Cache cache(ServerContext context, CacheName name) throws FelixException {
        checkLeads(context, name);
        return context.broker.caches().find(name).orElseThrow(
                () -> new FelixException(ErrorCode.NOT_FOUND, "cache not found: " + name));
    }

    /**
     * The cache a write goes to, provided this node leads it. In dev mode (auto-create) a memory cache with
     * defaults is created on first use; the future then completes once it is defined (never wait for it on an
     * event loop: compose on it).
     */
    static CompletableFuture<Cache> cacheToWrite(ServerContext context, CacheName name) {
        try {
            checkLeads(context, name);
            var existing = context.broker.caches().find(name);
            if (existing.isPresent()) {
                return CompletableFuture.completedFuture(existing.get());
            }
        } catch (FelixException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (context.config.autoCreate()) {
            return context.broker.caches().createAsync(name, dev.felix.core.cache.CacheConfig.defaults());
        }
        return CompletableFuture.failedFuture(new FelixException(ErrorCode.NOT_FOUND, "cache not found: " + name));
    }

    /** Whether this node serves cache {@code name} (a single node serves every cache). */
    static boolean leadsCache(ServerContext context, CacheName name) {
        return context.broker.router().cache(name) instanceof Leadership.Here;
    }

    private static void checkLeads(ServerContext context, CacheName name) throws FelixException {
        Leadership l = context.broker.router().cache(name);
        if (!(l instanceof Leadership.Here)) {
            throw refusal(l, "cache " + name).toException();
        }
    }

    private static FelixError refusal(Leadership l, String what) {
        if (l instanceof Leadership.Elsewhere e) {
            return Leadership.notLeader(what, e);
        }
        return ((Leadership.Unavailable) l).reason();
    }

    /** {@code forbidden} unless the request names the tenant the stream is authenticated for. */
    static void checkTenant(String tenant, String tenantId) throws FelixException {
        if (!tenant.equals(tenantId)) {
            throw new FelixException(ErrorCode.FORBIDDEN, "tenant mismatch: this stream is authenticated for '"
                    + tenant + "'");
        }
    }
}
