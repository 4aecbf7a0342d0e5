package dev.felix.transport;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.internal.PlatformDependent;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * Direct buffers above the pool's limit ({@link DirectBuffers#POOLED_MAX_BYTES}), whose memory is kept for the next
 * buffer of the same size class once released, up to a fixed bound in all, and freed by {@link #trim}.
 *
 * <p><b>Why.</b> A buffer of its own per large frame (a 4 MiB publish batch gathered by the {@link FrameDecoder}, a
 * large publish encoded by the SDK, a watch snapshot chunk copied for the stream) is fresh memory each time: the
 * operating system maps its pages on first touch, one page fault per 4 KiB, and takes them back at the free. In a
 * profile at 64 KiB payloads (2026-12-06) the decoder's copy of a gathered 4 MiB frame into fresh memory cost almost
 * four times its copy into reused memory (docs/benchmarks.md, "Memory reused for large buffers"). Keeping a few for
 * reuse costs a bounded amount instead: what a steady stream of large frames needs is one or two buffers in flight.
 *
 * <p><b>Size classes.</b> Four per power of two (a buffer of 4 MiB and 8 bytes takes memory of 5 MiB), so frames of
 * similar sizes share memory and at most a fifth of it is spare. A buffer's capacity is still exactly what was asked.
 *
 * <p><b>Threads and buffers.</b> Thread-safe: buffers are taken on event loops and often released elsewhere; the
 * free list is guarded by this object's monitor (large buffers come a few thousand per second at most). A buffer
 * from here is owned by its caller, who releases it; leak detection covers it as it covers Netty's own buffers. The
 * memory cached is not Netty's pool and not in its metrics: {@link #cachedBytes()} reports it.
 */
final class LargeBufferCache extends AbstractByteBufAllocator {

    /** The default bound on memory kept for reuse ({@code -Dfelix.large_buffer_cache_bytes}; 0 keeps none). */
    static final long DEFAULT_MAX_CACHED_BYTES = 16L << 20;

    static final LargeBufferCache SHARED =
            new LargeBufferCache(Long.getLong("felix.large_buffer_cache_bytes", DEFAULT_MAX_CACHED_BYTES));

    /** The most memory kept for reuse (bytes). */
    private final long maxCachedBytes;
    /** Released memory, newest first. Guarded by {@code this}. */
    private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
    /** Capacity of the buffers in {@link #free}. Guarded by {@code this}. */
    private long cachedBytes;

    LargeBufferCache(long maxCachedBytes) {
        super(true);
        this.maxCachedBytes = Math.max(0, maxCachedBytes);
    }

    /** Memory kept for reuse now (bytes): released buffers, not those in use. */
    synchronized long cachedBytes() {
        return cachedBytes;
    }

    /** Frees all memory kept for reuse (buffers in use are not affected); returns how much was freed (bytes). */
    long trim() {
        ByteBuffer[] drop;
        long freed;
        synchronized (this) {
            drop = free.toArray(new ByteBuffer[0]);
            free.clear();
            freed = cachedBytes;
            cachedBytes = 0;
        }
        for (ByteBuffer b : drop) {
            PlatformDependent.freeDirectBuffer(b);
        }
        return freed;
    }

    /** The memory size that serves a buffer of {@code capacity} bytes: four classes per power of two. */
    static int sizeClass(int capacity) {
        if (capacity <= 4) {
            return Math.max(capacity, 1);
        }
        int top = Integer.highestOneBit(capacity - 1); // capacity is in (top, 2 * top]
        int step = top >> 2;
        long size = ((long) capacity + step - 1) / step * step;
        return (int) Math.min(size, Integer.MAX_VALUE - 8);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        // The capacity is exact and fixed (DirectBuffers.exact): a buffer that could grow would outgrow its memory.
        int size = sizeClass(initialCapacity);
        ByteBuffer memory = take(size);
        if (memory == null) {
            memory = ByteBuffer.allocateDirect(size);
        }
        return toLeakAwareBuffer(new CachedDirectBuf(this, memory, initialCapacity));
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }

    private synchronized ByteBuffer take(int size) {
        for (Iterator<ByteBuffer> it = free.iterator(); it.hasNext(); ) {
            ByteBuffer b = it.next();
            if (b.capacity() == size) {
                it.remove();
                cachedBytes -= size;
                return b;
            }
        }
        return null;
    }

    /** Called when a buffer's last reference is released: keeps its memory if there is room, else frees it. */
    void giveBack(ByteBuffer memory) {
        synchronized (this) {
            if (cachedBytes + memory.capacity() <= maxCachedBytes) {
                free.addFirst(memory.clear());
                cachedBytes += memory.capacity();
                return;
            }
        }
        PlatformDependent.freeDirectBuffer(memory);
    }

    /** A buffer over part of a cached block of memory; its release gives the memory back instead of freeing it. */
    private static final class CachedDirectBuf extends UnpooledUnsafeDirectByteBuf {
        private final LargeBufferCache cache;
        private final ByteBuffer memory;

        CachedDirectBuf(LargeBufferCache cache, ByteBuffer memory, int capacity) {
            // Not sliced by Netty and never freed by it: this class gives the memory back at deallocate().
            super(cache, false, memory.duplicate().clear().limit(capacity).slice(), capacity);
            this.cache = cache;
            this.memory = memory;
            clear(); // the constructor marks the wrapped bytes readable; a new buffer has none
        }

        @Override
        public ByteBuf capacity(int newCapacity) {
            if (newCapacity != capacity()) {
                throw new UnsupportedOperationException("a large buffer's capacity is fixed: " + capacity());
            }
            return this;
        }

        @Override
        protected void deallocate() {
            super.deallocate(); // forgets the memory without freeing it (it was not Netty's)
            cache.giveBack(memory);
        }
    }
}
