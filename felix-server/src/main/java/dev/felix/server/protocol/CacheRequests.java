package dev.felix.server.protocol;

import dev.felix.core.Consistency;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;
import dev.felix.core.StreamConfig;
import dev.felix.core.cache.Cache;
import dev.felix.core.cache.CacheConfig;
import dev.felix.core.cache.CacheName;
import dev.felix.wire.CacheDescription;
import dev.felix.wire.Capabilities;
import dev.felix.wire.Message;
import dev.felix.wire.WirePayload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Cache requests on a client stream: {@code cache_put}, {@code cache_get} (upstream) and, as extensions,
 * {@code cache_delete}, {@code cache_create}, {@code cache_describe}, {@code cache_list},
 * {@code cache_drop}. Each returns its reply as a future; the stream writes replies in request order.
 * Writes in dev mode create a missing cache; reads never do. Stateless.
 */
final class CacheRequests {
    private CacheRequests() {
    }

    /** Whether {@code m} is a cache request (watches excepted: they take their stream over). */
    static boolean handles(Message m) {
        return m instanceof Message.CachePut || m instanceof Message.CacheGet || m instanceof Message.CacheDelete
                || m instanceof Message.CacheCreate || m instanceof Message.CacheDescribe
                || m instanceof Message.CacheList || m instanceof Message.CacheDrop;
    }

    static CompletableFuture<WirePayload> handle(ServerContext context, String tenant, Message m, int negotiated) {
        try {
            if (context.draining() && (m instanceof Message.CachePut || m instanceof Message.CacheDelete)) {
                // As publishes: a stopping node takes no more writes (a cluster hands its caches off next).
                throw new FelixException(dev.felix.core.ErrorCode.UNAVAILABLE, "the broker is shutting down");
            }
            if (m instanceof Message.CachePut p) {
                CacheName name = Routing.cacheName(tenant, p.tenantId(), p.namespace(), p.cache());
                Duration ttl = p.ttlMs() == null ? null
                        : Duration.ofMillis(RequestFields.u64("ttl_ms", p.ttlMs(), 1, Long.MAX_VALUE));
                return Routing.cacheToWrite(context, name)
                        .thenCompose(cache -> cache.put(p.key(), p.value(), ttl))
                        .thenApply(offset -> ok(p.requestId(), offset, negotiated))
                        .exceptionally(e -> error(context, e, p.requestId(), negotiated));
            }
            if (m instanceof Message.CacheGet g) {
                CacheName name = Routing.cacheName(tenant, g.tenantId(), g.namespace(), g.cache());
                // Loaded first: a log cache not loaded yet must not block the event loop in get(). Not behind
                // queued writes: a replicated cache's may wait seconds for a majority, reads of what is visible not.
                return onCurrent(context, name, Routing.cache(context, name), cache -> cache.loaded().thenApply(info -> {
                    try {
                        return (WirePayload) new Message.CacheValue(g.tenantId(), g.namespace(), g.cache(), g.key(),
                                cache.get(g.key()).orElse(null), g.requestId());
                    } catch (FelixException e) {
                        throw new CompletionException(e);
                    }
                })).exceptionally(e -> error(context, e, g.requestId(), negotiated));
            }
            if (m instanceof Message.CacheDelete d) {
                CacheName name = Routing.cacheName(tenant, d.tenantId(), d.namespace(), d.cache());
                return Routing.cacheToWrite(context, name)
                        .thenCompose(cache -> cache.delete(d.key()))
                        .thenApply(offset -> ok(d.requestId(), offset, negotiated))
                        .exceptionally(e -> error(context, e, d.requestId(), negotiated));
            }
            if (m instanceof Message.CacheCreate c) {
                CacheName name = Routing.cacheName(tenant, c.tenantId(), c.namespace(), c.cache());
                CacheConfig config = config(c, context.cluster != null);
                return context.broker.caches().createAsync(name, config)
                        .thenCompose(created -> Routing.leadsCache(context, name)
                                ? onCurrent(context, name, created, cache -> cache.load().thenApply(info ->
                                        info(context, cache, info.entries(), info.nextOffset(), c.requestId())))
                                        // The cache exists now; only its leadership is moving (this node is
                                        // taking it over, or handing it on): answered as a non-leader answers.
                                        .exceptionally(e -> context.cluster != null && leadershipMoving(e)
                                                ? info(context, created, 0, 0, c.requestId())
                                                : rethrow(e))
                                // Another node serves it: loading it here would open (for a log cache, create) a
                                // copy this node never serves, racing its release. Answered as a new cache.
                                : CompletableFuture.completedFuture(info(context, created, 0, 0, c.requestId())))
                        .exceptionally(e -> error(context, e, c.requestId(), negotiated));
            }
            if (m instanceof Message.CacheDescribe d) {
                CacheName name = Routing.cacheName(tenant, d.tenantId(), d.namespace(), d.cache());
                return onCurrent(context, name, Routing.cache(context, name), cache -> cache.load().thenApply(info ->
                                info(context, cache, info.entries(), info.nextOffset(), d.requestId())))
                        .exceptionally(e -> error(context, e, d.requestId(), negotiated));
            }
            if (m instanceof Message.CacheList l) {
                Routing.checkTenant(tenant, l.tenantId());
                List<CacheDescription> caches = new ArrayList<>();
                for (CacheName n : context.broker.caches().list(l.tenantId(), l.namespace())) {
                    context.broker.caches().find(n).ifPresent(c -> caches.add(describe(context, c)));
                }
                return CompletableFuture.completedFuture(new Message.CacheListResult(caches, l.requestId()));
            }
            Message.CacheDrop d = (Message.CacheDrop) m;
            CacheName name = Routing.cacheName(tenant, d.tenantId(), d.namespace(), d.cache());
            return context.broker.caches().drop(name, Boolean.TRUE.equals(d.force()))
                    .thenApply(v -> (WirePayload) new Message.CacheDropped(name.tenant(), name.namespace(),
                            name.cache(), d.requestId()))
                    .exceptionally(e -> error(context, e, d.requestId(), negotiated));
        } catch (FelixException | IllegalArgumentException e) {
            return CompletableFuture.completedFuture(error(context, e, requestId(m), negotiated));
        }
    }

    /**
     * Runs a read-only {@code op} on {@code cache}; if that instance was released meanwhile (in a cluster,
     * leadership of the cache changed: the node reopens it at the new epoch), once more on the instance that serves
     * the cache now, which answers for itself (including {@code not_leader} when the cache moved away).
     */
    private static CompletableFuture<WirePayload> onCurrent(ServerContext context, CacheName name, Cache cache,
            java.util.function.Function<Cache, CompletableFuture<WirePayload>> op) {
        return op.apply(cache).handle((v, e) -> {
            if (e == null) {
                return CompletableFuture.completedFuture(v);
            }
            if (cache.closed()) {
                try {
                    java.util.Optional<Cache> now = context.broker.caches().find(name);
                    if (now.isPresent() && now.get() != cache) {
                        return op.apply(now.get());
                    }
                } catch (FelixException lookup) {
                    // answered with the first error below
                }
            }
            return CompletableFuture.<WirePayload>failedFuture(e);
        }).thenCompose(f -> f);
    }

    /** Whether {@code e} says the cache's leadership is moving right now ({@code unavailable} or {@code not_leader}). */
    private static boolean leadershipMoving(Throwable e) {
        Throwable c = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return c instanceof FelixException fe && (fe.error().code() == dev.felix.core.ErrorCode.UNAVAILABLE
                || fe.error().code() == dev.felix.core.ErrorCode.NOT_LEADER);
    }

    private static WirePayload rethrow(Throwable e) {
        throw e instanceof CompletionException ce ? ce : new CompletionException(e);
    }

    private static CacheConfig config(Message.CacheCreate c, boolean clustered) throws FelixException {
        CacheConfig.Builder config = CacheConfig.builder();
        if (c.backing() != null) {
            config.backing(CacheConfig.Backing.parse(c.backing()));
        }
        if (c.ttlMs() != null) {
            config.defaultTtl(Duration.ofMillis(RequestFields.u64("ttl_ms", c.ttlMs(), 1, Long.MAX_VALUE)));
        }
        if (c.maxEntries() != null) {
            config.maxEntries((int) RequestFields.u64("max_entries", c.maxEntries(), 1, Integer.MAX_VALUE));
        }
        if (c.fsync() != null) {
            if (!CacheConfig.Backing.LOG.wireName().equals(c.backing())) {
                throw new IllegalArgumentException("fsync applies to log-backed caches only");
            }
            config.fsync(StreamConfig.Fsync.parse(c.fsync()));
        }
        if (c.consistency() != null) {
            config.consistency(Consistency.parse(c.consistency()));
        }
        // The config's own check first: quorum on a memory cache is wrong on any broker.
        CacheConfig built = config.build();
        if (!clustered && built.consistency() == Consistency.QUORUM) {
            throw new FelixException(ErrorCode.BAD_REQUEST, "consistency quorum needs a cluster; this broker is a"
                    + " single node (start it with --cluster-bootstrap or --cluster-join to form one, or create the"
                    + " cache with consistency leader)");
        }
        return built;
    }

    private static WirePayload ok(Long requestId, long offset, int negotiated) {
        if (requestId == null) {
            return new Message.Ok(); // upstream single-shot form; the stream then ends
        }
        Long reported = Capabilities.has(negotiated, Capabilities.CACHE_EXT) && offset >= 0 ? offset : null;
        return new Message.CacheOk(requestId, reported);
    }

    private static WirePayload info(ServerContext context, Cache cache, long entries, long nextOffset,
            Long requestId) {
        CacheDescription d = describe(context, cache);
        return new Message.CacheInfo(d.tenantId(), d.namespace(), d.cache(), d.backing(), d.ttlMs(), d.maxEntries(),
                d.fsync(), entries, nextOffset, requestId, d.consistency());
    }

    /**
     * A cache's definition. {@code consistency} is a cluster field: a clustered broker reports it for every cache
     * (as for streams), any broker reports it when it is not the default, so a client is never left to assume
     * {@code leader} wrongly.
     */
    private static CacheDescription describe(ServerContext context, Cache cache) {
        CacheConfig c = cache.config();
        CacheName n = cache.name();
        boolean report = context.cluster != null || c.consistency() != CacheConfig.DEFAULT_CONSISTENCY;
        return new CacheDescription(n.tenant(), n.namespace(), n.cache(), c.backing().wireName(),
                c.defaultTtl() == null ? null : c.defaultTtl().toMillis(), c.maxEntries(),
                c.backing() == CacheConfig.Backing.LOG ? c.fsync().wireName() : null,
                report ? c.consistency().wireName() : null);
    }

    private static WirePayload error(ServerContext context, Throwable e, Long requestId, int negotiated) {
        return Admin.error(context, e, requestId, negotiated);
    }

    private static Long requestId(Message m) {
        if (m instanceof Message.CachePut p) {
            return p.requestId();
        }
        if (m instanceof Message.CacheGet g) {
            return g.requestId();
        }
        if (m instanceof Message.CacheDelete d) {
            return d.requestId();
        }
        if (m instanceof Message.CacheCreate c) {
            return c.requestId();
        }
        if (m instanceof Message.CacheList l) {
            return l.requestId();
        }
        if (m instanceof Message.CacheDrop d) {
            return d.requestId();
        }
        return ((Message.CacheDescribe) m).requestId();
    }
}
