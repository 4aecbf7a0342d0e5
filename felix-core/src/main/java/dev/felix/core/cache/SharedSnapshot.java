package dev.felix.core.cache;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One snapshot of a cache (or of a key prefix) at one offset, shared by every watch that starts at it, and cut
 * into the same {@link SnapshotChunk} instances for all of them (issue 12 item 5). When 100 mirrors reconnect
 * together, the cache lists its entries once instead of 100 times, and a consumer that encodes chunks can
 * encode each once and share the bytes, recognising a chunk it already encoded by identity.
 *
 * <p>Chunks are cut lazily, as the first watch polls them ({@value WatcherQueue#CHUNK_ENTRIES} entries or
 * {@value WatcherQueue#CHUNK_BYTES} bytes at most, at least one entry), and kept for the watches behind it.
 * The snapshot lives while some watch still has chunks of it to poll; the cache keeps it, softly, only until
 * its next change.
 *
 * <p><b>Threads.</b> Created by the cache's writer; {@link #chunk(int)} is called by the consumers of several
 * watches at once and is synchronized. The nodes and the chunks are immutable.
 */
final class SharedSnapshot {

    private final Object state;
    private final long offset;
    private final String prefix;
    private final EntryTable.Node[] nodes;
    private final List<SnapshotChunk> chunks = new ArrayList<>();
    /** Index of the first node not yet in a chunk. */
    private int cut;

    /**
     * @param state  the cache's state the nodes come from (a reload makes a new one: never shared across it)
     * @param offset the offset of the first change after the snapshot
     * @param prefix the key prefix, or null for every key
     * @param nodes  the matching entries as of {@code offset}
     */
    SharedSnapshot(Object state, long offset, String prefix, EntryTable.Node[] nodes) {
        this.state = state;
        this.offset = offset;
        this.prefix = prefix;
        this.nodes = nodes;
    }

    /** Whether a watch of {@code prefix} starting on {@code state} at {@code offset} sees exactly this snapshot. */
    boolean isFor(Object state, long offset, String prefix) {
        return this.state == state && this.offset == offset && Objects.equals(this.prefix, prefix);
    }

    long offset() {
        return offset;
    }

    /** Chunk {@code index} (from 0); the one with {@code last = true} is the final one. */
    synchronized SnapshotChunk chunk(int index) {
        while (chunks.size() <= index) {
            chunks.add(cutNext());
        }
        return chunks.get(index);
    }

    private SnapshotChunk cutNext() {
        int from = cut;
        int to = from;
        long chunkBytes = 0;
        while (to < nodes.length && to - from < WatcherQueue.CHUNK_ENTRIES) {
            long w = nodes[to].weight();
            if (to > from && chunkBytes + w > WatcherQueue.CHUNK_BYTES) {
                break;
            }
            chunkBytes += w;
            to++;
        }
        List<CacheEntry> entries = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            entries.add(nodes[i].entry());
        }
        cut = to;
        return new SnapshotChunk(offset, entries, to == nodes.length);
    }
}
