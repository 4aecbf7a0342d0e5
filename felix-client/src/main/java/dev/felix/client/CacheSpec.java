package dev.felix.client;

import java.time.Duration;

/**
 * The definition of a cache to create.
 *
 * @param backing     {@code memory} (a bounded in-memory change history) or {@code log} (every change in a
 *                    durable log, compacted by snapshots; survives restarts)
 * @param defaultTtl  TTL of puts that give none, or null for no expiry
 * @param maxEntries  capacity; past it the least recently used entries are evicted (as changes), or null
 *                    for the broker default
 * @param fsync       log backing: {@code on_commit}, {@code periodic} or {@code none}; null = broker default
 */
public record CacheSpec(String backing, Duration defaultTtl, Long maxEntries, String fsync) {

    public static CacheSpec memory() {
        return new CacheSpec("memory", null, null, null);
    }

    public static CacheSpec log(String fsync) {
        return new CacheSpec("log", null, null, fsync);
    }

    public CacheSpec withTtl(Duration ttl) {
        return new CacheSpec(backing, ttl, maxEntries, fsync);
    }

    public CacheSpec withMaxEntries(long entries) {
        return new CacheSpec(backing, defaultTtl, entries, fsync);
    }
}
