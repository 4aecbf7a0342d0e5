/**
 * Felix caches: named key/value caches with TTLs, a real capacity (LRU), a gap-free change sequence and
 * watches that start from a consistent snapshot or resume from an offset — so a consumer's local copy is
 * right after any stall. Memory caches keep a bounded ring of recent changes; log caches append every change
 * to a durable log compacted by snapshots and survive restart.
 *
 * <p>Public API: {@link dev.felix.core.cache.Caches} (a node's registry), {@link dev.felix.core.cache.Cache}
 * (put / get / delete / sweep / compact / watch), {@link dev.felix.core.cache.CacheWatch} with
 * {@link dev.felix.core.cache.WatchListener} and the {@link dev.felix.core.cache.WatchItem}s it delivers
 * ({@link dev.felix.core.cache.SnapshotChunk}, {@link dev.felix.core.cache.Change},
 * {@link dev.felix.core.cache.WatchEnded}), and the values {@link dev.felix.core.cache.CacheName},
 * {@link dev.felix.core.cache.CacheConfig}, {@link dev.felix.core.cache.CacheRuntime},
 * {@link dev.felix.core.cache.CacheEntry}, {@link dev.felix.core.cache.CacheInfo},
 * {@link dev.felix.core.cache.CacheMetrics}. Everything else here is package-private: the entry table, change
 * ring, watcher queue, read buffer, log/snapshot/meta formats and the definition catalog. The design is
 * described in {@code docs/caches.md} and in the class comments of {@code Cache}, {@code EntryTable} and
 * {@code CacheLog}.
 */
package dev.felix.core.cache;
