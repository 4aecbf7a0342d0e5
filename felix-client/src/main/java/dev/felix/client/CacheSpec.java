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
 * @param consistency a cluster's log caches: {@code leader} or {@code quorum} (a change is acknowledged once a
 *                    majority of the cache's replicas holds it, as for a durable stream shard); null =
 *                    {@code leader}. A single node refuses {@code quorum}, and so does any broker for a memory
 *                    cache ({@code bad_request} with the broker's reason)
 */
public record CacheSpec(String backing, Duration defaultTtl, Long maxEntries, String fsync, String consistency) {

    /** Without a consistency (the broker's default, {@code leader}). */
    public CacheSpec(String backing, Duration defaultTtl, Long maxEntries, String fsync) {
        this(backing, defaultTtl, maxEntries, fsync, null);
    }

    public static CacheSpec memory() {
        return new CacheSpec("memory", null, null, null);
    }

    public static CacheSpec log(String fsync) {
        return new CacheSpec("log", null, null, fsync);
    }

    public CacheSpec withTtl(Duration ttl) {
        return new CacheSpec(backing, ttl, maxEntries, fsync, consistency);
    }

    public CacheSpec withMaxEntries(long entries) {
        return new CacheSpec(backing, defaultTtl, entries, fsync, consistency);
    }

    /**
     * This definition with a consistency: {@code leader} or {@code quorum}, checked here so a typo fails at the
     * call rather than at the broker. Whether the broker accepts it (a cluster, a log cache) is the broker's call.
     *
     * @throws IllegalArgumentException for any other value
     */
    public CacheSpec withConsistency(String value) {
        if (!"leader".equals(value) && !"quorum".equals(value)) {
            throw new IllegalArgumentException("cache consistency must be leader or quorum, not '" + value + "'");
        }
        return new CacheSpec(backing, defaultTtl, maxEntries, fsync, value);
    }
}
