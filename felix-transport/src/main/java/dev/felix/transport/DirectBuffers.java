package dev.felix.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Where a direct buffer of a given size comes from: the channel's pool up to {@link #POOLED_MAX_BYTES}, a small cache
 * of large buffers above ({@link LargeBufferCache}: at most 16 MiB kept for reuse once released, freed by
 * {@link #trimLargeBuffers}).
 *
 * <p><b>Why.</b> Netty's adaptive allocator serves buffers above its largest size class (16 KiB) from chunks it sizes
 * for about eight such buffers, and never sizes them down: one buffer of 512 KiB to 1 MiB makes every later chunk
 * 8 MiB, and the chunks it keeps for reuse (per magazine, and in its reuse cache when they were still in use when
 * handed back) are never trimmed while nothing is allocated. Measured in {@code ChurnLeakSoakTest} (2026-12-06): a
 * watch snapshot's 1 MiB frames, copied into direct memory by Netty's QUIC stream, and a decoder accumulating a large
 * frame by doubling, left the pool holding 18 such 8 MiB chunks after every client had gone. Up to 128 KiB the chunks
 * stay at 1 MiB at most (the size 64 KiB delivery frames already give them); the rare larger buffer (a watch snapshot
 * chunk, a large publish batch, a reply of many entries) is allocated outside the pool, as Netty already does for
 * every buffer above 1 MiB, but from memory kept for reuse within a fixed bound: fresh memory per large frame is
 * page-faulted in on first touch (see {@link LargeBufferCache}).
 *
 * <p><b>Buffers.</b> The caller owns what it gets and releases it; leak detection covers both kinds.
 */
public final class DirectBuffers {

    /** The largest buffer taken from the pool. */
    public static final int POOLED_MAX_BYTES = 128 << 10;

    private DirectBuffers() {
    }

    /** A direct buffer of exactly {@code capacity} bytes (it does not grow): pooled up to the limit, unpooled above. */
    public static ByteBuf exact(ByteBufAllocator pool, int capacity) {
        return capacity <= POOLED_MAX_BYTES
                ? pool.directBuffer(capacity, capacity)
                : LargeBufferCache.SHARED.directBuffer(capacity, capacity);
    }

    /**
     * Frees the memory of released large buffers kept for reuse (the broker does when idle); returns how much
     * (bytes).
     */
    public static long trimLargeBuffers() {
        return LargeBufferCache.SHARED.trim();
    }

    /** Memory of released large buffers kept for reuse now (bytes; {@code felix_large_buffer_cache_bytes}). */
    public static long largeBuffersCachedBytes() {
        return LargeBufferCache.SHARED.cachedBytes();
    }

    /**
     * {@code frame} in direct memory, as QUIC hands quiche direct memory only: as it is when direct, else copied by
     * {@link #copyOf} (and released). Copying here rather than leaving it to Netty's stream makes the copy the
     * writer's own, with its size choosing the buffer, so {@link StreamWrites} can release it if a write strands it.
     */
    public static ByteBuf direct(ByteBufAllocator pool, ByteBuf frame) {
        return frame.isDirect() ? frame : copyOf(pool, frame);
    }

    /** {@code heap}'s readable bytes copied into a direct buffer from {@link #exact}; {@code heap} is released. */
    public static ByteBuf copyOf(ByteBufAllocator pool, ByteBuf heap) {
        try {
            int len = heap.readableBytes();
            return exact(pool, len).writeBytes(heap, heap.readerIndex(), len);
        } finally {
            heap.release();
        }
    }
}
