package dev.felix.core.routing;

import dev.felix.core.StreamName;
import dev.felix.core.cache.CacheName;

/**
 * Who leads each shard and cache right now.
 *
 * <p><b>Threads.</b> Thread-safe; answers from local state and never blocks, so the data path may ask on
 * every request.
 */
public interface Router {

    /** Who leads shard {@code shard} of {@code stream}. */
    Leadership shard(StreamName stream, int shard);

    /** Who leads {@code cache}. */
    Leadership cache(CacheName cache);
}
