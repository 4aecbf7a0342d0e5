package dev.felix.core.routing;

import dev.felix.core.StreamName;
import dev.felix.core.cache.CacheName;

/** A single node leads everything it has. Stateless, thread-safe. */
public final class LocalRouter implements Router {

    @Override
    public Leadership shard(StreamName stream, int shard) {
        return Leadership.HERE;
    }

    @Override
    public Leadership cache(CacheName cache) {
        return Leadership.HERE;
    }
}
