package dev.felix.server.protocol;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.StreamConfig;
import dev.felix.core.cache.Cache;
import dev.felix.core.cache.CacheConfig;
import dev.felix.core.cache.CacheInfo;
import dev.felix.core.cache.CacheName;
import dev.felix.wire.Capabilities;
import dev.felix.wire.Message;
import dev.felix.wire.WirePayload;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Cache requests on a client stream: {@code cache_put}, {@code cache_get} (upstream) and, as
 * extensions, {@code cache_delete}, {@code cache_create}, {@code cache_describe}. Each returns its reply
 * as a future; the stream writes replies in request order.
 */
final class CacheRequests {
    private CacheRequests() {
    }

    static CompletableFuture<WirePayload> handle(ServerContext context, String tenant, Message m, int negotiated) {
        try {
            if (m instanceof Message.CachePut p) {
                Cache cache = cache(context, tenant, p.tenantId(), p.namespace(), p.cache());
                Duration ttl = p.ttlMs() == null ? null
                        : Duration.ofMillis(RequestFields.u64("ttl_ms", p.ttlMs(), 1, Long.MAX_VALUE));
                return cache.put(p.key(), p.value(), ttl)
                        .thenApply(offset -> ok(p.requestId(), offset, negotiated))
                        .exceptionally(e -> error(context, e, p.requestId(), negotiated));
            }
            if (m instanceof Message.CacheGet g) {
                Cache cache = cache(context, tenant, g.tenantId(), g.namespace(), g.cache());
                // load() first: a log cache not loaded yet must not block the event loop in get()
                return cache.load().thenApply(info -> {
                    try {
                        return (WirePayload) new Message.CacheValue(g.tenantId(), g.namespace(), g.cache(), g.key(),
                                cache.get(g.key()).orElse(null), g.requestId());
                    } catch (FelixException e) {
                        throw new CompletionException(e);
                    }
                }).exceptionally(e -> error(context, e, g.requestId(), negotiated));
            }
            if (m instanceof Message.CacheDelete d) {
                Cache cache = cache(context, tenant, d.tenantId(), d.namespace(), d.cache());
                return cache.delete(d.key())
                        .thenApply(offset -> ok(d.requestId(), offset, negotiated))
                        .exceptionally(e -> error(context, e, d.requestId(), negotiated));
            }
            if (m instanceof Message.CacheCreate c) {
                CacheName name = name(tenant, c.tenantId(), c.namespace(), c.cache());
                CacheConfig config = config(c);
                Cache cache = context.broker.caches().create(name, config);
                return cache.load().thenApply(info -> info(cache, info, c.requestId()))
                        .exceptionally(e -> error(context, e, c.requestId(), negotiated));
            }
            Message.CacheDescribe d = (Message.CacheDescribe) m;
            CacheName name = name(tenant, d.tenantId(), d.namespace(), d.cache());
            Cache cache = context.broker.caches().get(name);
            return cache.load().thenApply(info -> info(cache, info, d.requestId()))
                    .exceptionally(e -> error(context, e, d.requestId(), negotiated));
        } catch (FelixException | IllegalArgumentException e) {
            return CompletableFuture.completedFuture(error(context, e, requestId(m), negotiated));
        }
    }

    /** The named cache; in dev mode (auto-create) a memory cache with defaults is created on first use. */
    static Cache cache(ServerContext context, String tenant, String tenantId, String namespace, String cache)
            throws FelixException {
        CacheName name = name(tenant, tenantId, namespace, cache);
        var existing = context.broker.caches().find(name);
        if (existing.isPresent()) {
            return existing.get();
        }
        if (context.config.autoCreate()) {
            return context.broker.caches().create(name, CacheConfig.defaults());
        }
        throw new FelixException(ErrorCode.NOT_FOUND, "cache scope not found: " + name);
    }

    static CacheName name(String tenant, String tenantId, String namespace, String cache) throws FelixException {
        if (!tenant.equals(tenantId)) {
            throw new FelixException(ErrorCode.FORBIDDEN, "tenant mismatch: this stream is authenticated for '"
                    + tenant + "'");
        }
        try {
            return new CacheName(tenantId, namespace, cache);
        } catch (IllegalArgumentException e) {
            throw new FelixException(ErrorCode.BAD_REQUEST, e.getMessage());
        }
    }

    private static CacheConfig config(Message.CacheCreate c) throws FelixException {
        CacheConfig config = CacheConfig.defaults();
        if (c.backing() != null) {
            config = config.withBacking(CacheConfig.Backing.parse(c.backing()));
        }
        if (c.ttlMs() != null) {
            config = config.withDefaultTtl(Duration.ofMillis(RequestFields.u64("ttl_ms", c.ttlMs(), 1, Long.MAX_VALUE)));
        }
        if (c.maxEntries() != null) {
            config = config.withMaxEntries((int) RequestFields.u64("max_entries", c.maxEntries(), 1, Integer.MAX_VALUE));
        }
        if (c.fsync() != null) {
            if (config.backing() != CacheConfig.Backing.LOG) {
                throw new IllegalArgumentException("fsync applies to log-backed caches only");
            }
            config = config.withFsync(StreamConfig.Fsync.parse(c.fsync()));
        }
        return config;
    }

    private static WirePayload ok(Long requestId, long offset, int negotiated) {
        if (requestId == null) {
            return new Message.Ok(); // upstream single-shot form; the stream then ends
        }
        Long reported = Capabilities.has(negotiated, Capabilities.CACHE_EXT) && offset >= 0 ? offset : null;
        return new Message.CacheOk(requestId, reported);
    }

    private static WirePayload info(Cache cache, CacheInfo info, Long requestId) {
        CacheConfig c = cache.config();
        CacheName n = cache.name();
        return new Message.CacheInfo(n.tenant(), n.namespace(), n.cache(), c.backing().wireName(),
                c.defaultTtl() == null ? null : c.defaultTtl().toMillis(), c.maxEntries(),
                c.backing() == CacheConfig.Backing.LOG ? c.fsync().wireName() : null,
                info.entries(), info.nextOffset(), requestId);
    }

    private static WirePayload error(ServerContext context, Throwable e, Long requestId, int negotiated) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        FelixError error = cause instanceof FelixException fe ? fe.error()
                : FelixError.of(cause instanceof IllegalArgumentException ? ErrorCode.BAD_REQUEST : ErrorCode.INTERNAL,
                        String.valueOf(cause.getMessage()));
        context.metrics.error(error.code());
        return Frames.error(error, requestId, negotiated);
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
        return ((Message.CacheDescribe) m).requestId();
    }
}
