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
        if (!metadata.readsMayLag() || !tenant.equals(tenantOf(m))) {
            return NOW;
        }
        try {
            if (m instanceof Message.StreamDescribe d) {
                return stream(metadata, d.tenantId(), d.namespace(), d.stream());
            }
            if (m instanceof Message.StreamDelete d) {
                return stream(metadata, d.tenantId(), d.namespace(), d.stream());
            }
            if (m instanceof Message.StreamList l) {
                return namespace(metadata, l.tenantId(), l.namespace());
            }
            if (m instanceof Message.CacheList l) {
                return namespace(metadata, l.tenantId(), l.namespace());
            }
            if (m instanceof Message.CachePut p) {
                return cache(metadata, p.tenantId(), p.namespace(), p.cache());
            }
            if (m instanceof Message.CacheGet g) {
                return cache(metadata, g.tenantId(), g.namespace(), g.cache());
            }
            if (m instanceof Message.CacheDelete d) {
                return cache(metadata, d.tenantId(), d.namespace(), d.cache());
            }
            if (m instanceof Message.CacheDescribe d) {
                return cache(metadata, d.tenantId(), d.namespace(), d.cache());
            }
            if (m instanceof Message.CacheDrop d) {
                return cache(metadata, d.tenantId(), d.namespace(), d.cache());
            }
            if (m instanceof Message.CacheWatch w) {
                return cache(metadata, w.tenantId(), w.namespace(), w.cache());
            }
        } catch (RuntimeException | dev.felix.core.FelixException e) {
            return NOW; // a bad name: the handler says what is wrong with it
        }
        return NOW; // creates go through the metadata leader; publishes and subscribes ask for themselves
    }

    /** The tenant a request names, or null when it names none this barrier looks at. */
    private static String tenantOf(Message m) {
        if (m instanceof Message.StreamDescribe d) {
            return d.tenantId();
        }
        if (m instanceof Message.StreamDelete d) {
            return d.tenantId();
        }
        if (m instanceof Message.StreamList l) {
            return l.tenantId();
        }
        if (m instanceof Message.CacheList l) {
            return l.tenantId();
        }
        if (m instanceof Message.CachePut p) {
            return p.tenantId();
        }
        if (m instanceof Message.CacheGet g) {
            return g.tenantId();
        }
        if (m instanceof Message.CacheDelete d) {
            return d.tenantId();
        }
        if (m instanceof Message.CacheDescribe d) {
            return d.tenantId();
        }
        if (m instanceof Message.CacheDrop d) {
            return d.tenantId();
        }
        if (m instanceof Message.CacheWatch w) {
            return w.tenantId();
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

    private static CompletableFuture<Void> stream(Metadata metadata, String tenant, String namespace, String stream)
            throws dev.felix.core.FelixException {
        return metadata.stream(new StreamName(tenant, namespace, stream)).isPresent() ? NOW : metadata.catchUp();
    }

    private static CompletableFuture<Void> cache(Metadata metadata, String tenant, String namespace, String cache)
            throws dev.felix.core.FelixException {
        return metadata.cache(new CacheName(tenant, namespace, cache)).isPresent() ? NOW : metadata.catchUp();
    }

    private static CompletableFuture<Void> namespace(Metadata metadata, String tenant, String namespace) {
        boolean known = namespace == null ? metadata.tenantExists(tenant) : metadata.namespaceExists(tenant, namespace);
        return known ? NOW : metadata.catchUp();
    }
}
