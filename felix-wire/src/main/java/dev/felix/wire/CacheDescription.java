package dev.felix.wire;

import java.util.Objects;

/**
 * A cache's definition, as each element of {@code cache_list_result.caches} carries it (extension,
 * {@link Capabilities#CACHE_EXT}).
 *
 * <p>JSON keys in order: {@code tenant_id, namespace, cache, backing, ttl_ms?, max_entries, fsync?,
 * consistency?}.
 *
 * @param tenantId   tenant
 * @param namespace  namespace
 * @param cache      cache name
 * @param backing    {@code memory | log} (plain string: a newer value must not break an older peer)
 * @param ttlMs      u64 default time to live, or null for none
 * @param maxEntries u64 bound on the number of entries
 * @param fsync      fsync policy, or null if not applicable
 * @param consistency {@code leader | quorum} from a clustered broker (extension {@link Capabilities#CLUSTER}), or
 *                    whenever it is not {@code leader}; null otherwise (which means {@code leader})
 */
public record CacheDescription(String tenantId, String namespace, String cache, String backing, Long ttlMs,
        long maxEntries, String fsync, String consistency) {

    /** Without {@code consistency} (a broker that is not clustered, {@code leader}). */
    public CacheDescription(String tenantId, String namespace, String cache, String backing, Long ttlMs,
            long maxEntries, String fsync) {
        this(tenantId, namespace, cache, backing, ttlMs, maxEntries, fsync, null);
    }

    /** @throws NullPointerException if a required field is null */
    public CacheDescription {
        Objects.requireNonNull(tenantId, "tenant_id");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(cache, "cache");
        Objects.requireNonNull(backing, "backing");
    }
}
