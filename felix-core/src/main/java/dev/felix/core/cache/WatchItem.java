package dev.felix.core.cache;

/**
 * What a {@link CacheWatch} delivers, in order:
 * <ol>
 *   <li>for a watch without a resume offset, the {@link SnapshotChunk}s of one consistent snapshot at
 *       offset N (the last one has {@code last = true});</li>
 *   <li>{@link Change}s with strictly increasing offsets, gap-free with respect to the watch's prefix (every
 *       change of the cache at or after the start offset whose key matches the prefix);</li>
 *   <li>possibly a final {@link WatchEnded} naming the offset to resume from; nothing follows it.</li>
 * </ol>
 */
public sealed interface WatchItem permits SnapshotChunk, Change, WatchEnded {
}
