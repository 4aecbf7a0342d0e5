package dev.felix.core.metadata;

import dev.felix.core.cache.CacheConfig;
import dev.felix.core.cache.CacheName;

/**
 * A cache as metadata knows it.
 *
 * @param uid as {@link StreamRecord#uid()}: a dropped and re-created cache never sees the old log
 */
public record CacheRecord(CacheName name, CacheConfig config, long uid) {
}
