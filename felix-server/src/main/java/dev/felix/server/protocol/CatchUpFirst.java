package dev.felix.server.protocol;

import dev.felix.core.StreamName;
import dev.felix.core.cache.CacheName;
import dev.felix.core.metadata.Metadata;
import dev.felix.wire.Message;
import java.util.concurrent.CompletableFuture;

/**
 * The barrier before {@code not_found} in a cluster. A cluster node applies the metadata log a moment after the
 * node that served a create, so a request naming a stream or cache this node does not know yet waits until the
 * node has caught up with the cluster ({@link Metadata#catchUp()}) and is handled after that, as usual. A request
 * naming what this node knows, one that creates, and every request on a single node go straight through: the
 * barrier costs nothing on the data path, only a round trip to the metadata leader for a name unknown here.
 *
 * <p>The returned future never fails, and it is already done when there is nothing to wait for, so that callers
 * can handle the request at once in the common case. When it is not done, callers continue on their event loop.
 * Stateless; any thread.
 */
final class CatchUpFirst {
    private static final CompletableFuture<Void> NOW = CompletableFuture.completedFuture(null);

    private CatchUpFirst() {
    }

    /**
     * Done at once unless {@code m} names a stream or cache of {@code tenant} (the stream's authenticated tenant)
     * unknown to this cluster node (see the class). Another tenant's names never wait: the handler refuses them.
     */
    static CompletableFuture<Void> before(ServerContext context, String tenant, Message m) {
        Metadata metadata = context.broker.metadata();
        Named n = metadata.readsMayLag() ? named(m) : null;
        if (n == null || !tenant.equals(n.tenant())) {
            return NOW; // creates go through the metadata leader; publishes and subscribes ask for themselves
        }
        try {
            boolean known = switch (n.kind()) {
                case STREAM -> metadata.stream(new StreamName(n.tenant(), n.namespace(), n.name())).isPresent();
                case CACHE -> metadata.cache(new CacheName(n.tenant(), n.namespace(), n.name())).isPresent();
                case NAMESPACE -> n.namespace() == null ? metadata.tenantExists(n.tenant())
                        : metadata.namespaceExists(n.tenant(), n.namespace());
            };
            return known ? NOW : metadata.catchUp();
        } catch (RuntimeException | dev.felix.core.FelixException e) {
            return NOW; // a bad name: the handler says what is wrong with it
        }
    }

    private enum Kind { STREAM, CACHE, NAMESPACE }

    /** What a request names: a stream, a cache, or a namespace to list ({@code name} null). */
    private record Named(Kind kind, String tenant, String namespace, String name) {
    }

    /** What {@code m} names, or null when it is not a request this barrier looks at. */
    private static Named named(Message m) {
        if (m instanceof Message.StreamDescribe d) {
            return new Named(Kind.STREAM, d.tenantId(), d.namespace(), d.stream());
        }
        if (m instanceof Message.StreamDelete d) {
            return new Named(Kind.STREAM, d.tenantId(), d.namespace(), d.stream());
        }
        if (m instanceof Message.StreamList l) {
            return new Named(Kind.NAMESPACE, l.tenantId(), l.namespace(), null);
        }
        if (m instanceof Message.CacheList l) {
            return new Named(Kind.NAMESPACE, l.tenantId(), l.namespace(), null);
        }
        if (m instanceof Message.CachePut p) {
            return new Named(Kind.CACHE, p.tenantId(), p.namespace(), p.cache());
        }
        if (m instanceof Message.CacheGet g) {
            return new Named(Kind.CACHE, g.tenantId(), g.namespace(), g.cache());
        }
        if (m instanceof Message.CacheDelete d) {
            return new Named(Kind.CACHE, d.tenantId(), d.namespace(), d.cache());
        }
        if (m instanceof Message.CacheDescribe d) {
            return new Named(Kind.CACHE, d.tenantId(), d.namespace(), d.cache());
        }
        if (m instanceof Message.CacheDrop d) {
            return new Named(Kind.CACHE, d.tenantId(), d.namespace(), d.cache());
        }
        if (m instanceof Message.CacheWatch w) {
            return new Named(Kind.CACHE, w.tenantId(), w.namespace(), w.cache());
        }
        return null;
    }

    /** Done at once unless {@code name} is a stream unknown to this cluster node. */
    static CompletableFuture<Void> stream(ServerContext context, StreamName name) {
        Metadata metadata = context.broker.metadata();
        if (!metadata.readsMayLag()) {
            return NOW;
        }
        try {
            return metadata.stream(name).isPresent() ? NOW : metadata.catchUp();
        } catch (dev.felix.core.FelixException e) {
            return NOW;
        }
    }
}
