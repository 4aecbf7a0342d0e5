package dev.felix.server.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.internal.PlatformDependent;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.LongAdder;

/**
 * The memory of pooled payloads ({@code pooled_payloads}): direct blocks of {@link #BLOCK_BYTES} that a publish's
 * events are copied into back to back, and that are kept for the next copies once every region in them is released,
 * instead of going back to the allocator.
 *
 * <p><b>Why blocks of our own.</b> A shard's ring keeps up to {@code ring_bytes} of events and lets the oldest go as
 * new ones come, so under load payload memory is a steady stream of allocations and releases of the ring's size.
 * Served by Netty's allocator, the chunks the ring empties go back to the system and the next copies fault fresh
 * pages in: measured (docs/benchmarks.md, "Pooled payloads"), the copy into pooled memory took four times the broker
 * CPU of the copy into heap arrays, with half again as many page faults. Blocks recycled here stay mapped; a copy
 * into one is a plain memory copy.
 *
 * <p><b>How a copy is placed.</b> Each thread that copies (a connection's event loop) fills its own current block
 * from where the last copy ended, and takes the next block when it is full; a region larger than the room left spans
 * blocks (an event may too: {@link PooledPayloads} reads across the seam). Nothing is wasted at the end of a block and
 * nothing is rounded up. The cost is that a block is reused only once all of its regions are released: a region kept
 * long (the last events of a stream that went quiet, kept in its ring) keeps its whole block, and its slab stays while
 * any of its blocks is in use; {@link #blockBytes()} shows the slabs' memory as it is.
 *
 * <p><b>Bounds.</b> Blocks are cut from 32 MiB slabs and a block no region uses any more is kept for reuse
 * ({@link SpareBlocks}, one list per process), not freed, while load lasts: freeing it would give the memory back only
 * to fault it in again a moment later (docs/benchmarks.md, "Payload blocks"). What is in use is bounded by the rings'
 * {@code ring_bytes} and the writes in flight. Once per {@link #SPARE_DECAY_SECONDS} window, slabs whose blocks no
 * copy needed in it are freed ({@link #freeUnusedSpares}, which the broker calls every second); {@link #trim()} frees
 * every slab with no block in use, and {@link #dropCurrentBlock} lets an idle thread's current block go (the broker
 * does both when it has had no client for a while: {@code IdleMemory}).
 *
 * <p><b>References.</b> A block counts its users: the thread whose current block it is, and each region part in it.
 * The last release hands it back to the spares. Netty's leak detection covers the slabs; a region never released
 * keeps its block out, and its bytes in {@code felix_pooled_payload_bytes}.
 *
 * <p><b>Threads.</b> Copies run on any thread, each into its own current block (a {@link FastThreadLocal}); releases
 * come from any thread. Taking and handing back a block takes a lock, once per block, not per copy.
 */
public final class PayloadBlocks implements AutoCloseable {

    /** Size of one block. */
    public static final int BLOCK_BYTES = 64 << 10;
    /** Size of the slabs blocks are cut from (see {@link SpareBlocks}). */
    public static final int SLAB_BYTES = 32 << 20;
    /** The window after which slabs whose blocks no copy needed in it are freed (see {@link SpareBlocks}). */
    public static final long SPARE_DECAY_SECONDS = 30;

    private final int blockBytes;
    private final SpareBlocks spares;
    private boolean closed; // guarded by this
    private final List<Cursor> cursors = new ArrayList<>(); // guarded by this
    private final FastThreadLocal<Cursor> cursor = new FastThreadLocal<>() {
        @Override
        protected Cursor initialValue() {
            Cursor c = new Cursor();
            synchronized (PayloadBlocks.this) {
                cursors.add(c);
            }
            return c;
        }
    };

    /** Blocks of {@link #BLOCK_BYTES}, their spares kept in the process's list. */
    public PayloadBlocks() {
        this(SpareBlocks.SHARED);
    }

    /** Blocks of the size {@code spares} keeps (tests use small ones and their own spares). */
    PayloadBlocks(SpareBlocks spares) {
        if (spares.blockBytes < 8) {
            throw new IllegalArgumentException("blocks of at least 8 bytes");
        }
        this.blockBytes = spares.blockBytes;
        this.spares = spares;
    }

    /**
     * Copies the {@code length} bytes at {@code at} of {@code frame} (relative to its position, which is left as it
     * was, as is its limit) into this thread's blocks; {@code held} counts them until the region's last release.
     */
    PooledPayloads copy(ByteBuffer frame, int at, int length, LongAdder held) {
        Cursor c = cursor.get();
        int from = frame.position() + at;
        if (at < 0 || length < 0 || from > frame.limit() - length) {
            throw new IndexOutOfBoundsException("copy of " + length + " bytes at " + at + " of a frame of "
                    + frame.remaining());
        }
        if (c.block == null) {
            nextBlock(c);
        }
        if (blockBytes - c.offset >= length) { // the common case: one part
            Block b = c.block;
            int start = c.offset;
            put(b, start, frame, from, length);
            b.retain();
            c.offset += length;
            held.add(length);
            return PooledPayloads.single(b, start, length, held);
        }
        return copyInParts(c, frame, from, length, held);
    }

    /** A copy larger than the room left in the current block: it continues in the next blocks. */
    private PooledPayloads copyInParts(Cursor c, ByteBuffer frame, int from, int length, LongAdder held) {
        int room = blockBytes - c.offset;
        int n = (room > 0 ? 1 : 0) + (length - room + blockBytes - 1) / blockBytes;
        Block[] blocks = new Block[n];
        int[] starts = new int[n];
        int[] ends = new int[n];
        int done = 0;
        for (int i = 0; i < n; i++) {
            if (c.offset == blockBytes) {
                try {
                    nextBlock(c);
                } catch (RuntimeException | Error e) { // closed, or out of direct memory: give back what was taken
                    for (int k = 0; k < i; k++) {
                        blocks[k].release();
                    }
                    throw e;
                }
            }
            int part = Math.min(length - done, blockBytes - c.offset);
            put(c.block, c.offset, frame, from + done, part);
            c.block.retain();
            blocks[i] = c.block;
            starts[i] = c.offset;
            c.offset += part;
            done += part;
            ends[i] = done;
        }
        held.add(length);
        return PooledPayloads.parts(blocks, starts, ends, held, length);
    }

    /**
     * Copies {@code length} bytes at absolute index {@code from} of {@code frame} (bounds checked by the caller) to
     * {@code index} of {@code b}. By memory address when both have one: through the block's slice and the frame's
     * position and limit, a 256-byte copy made a dozen calls, measured at 1.3% of the broker's CPU at 256 B fanout 1
     * (docs/benchmarks.md, "Payload blocks"). Else a buffer to buffer copy, the frame's position and limit restored.
     */
    private static void put(Block b, int index, ByteBuffer frame, int from, int length) {
        if (b.address != 0 && frame.isDirect()) {
            PlatformDependent.copyMemory(PlatformDependent.directBufferAddress(frame) + from, b.address + index,
                    length);
            return;
        }
        int position = frame.position();
        int limit = frame.limit();
        try {
            frame.limit(from + length).position(from);
            b.memory.setBytes(index, frame); // no view of either is allocated
        } finally {
            frame.limit(limit).position(position);
        }
    }

    /** Hands this thread's full (or no) block back and takes another. */
    private void nextBlock(Cursor c) {
        if (c.block != null) {
            Block full = c.block;
            c.block = null; // so a take that throws leaves no released block behind
            full.release();
        }
        c.block = take();
        c.offset = 0;
    }

    private Block take() {
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("payload blocks closed");
            }
        }
        return new Block(spares, spares.take());
    }

    /**
     * Lets this thread's current block go (it goes back to the spares once its regions are released); the broker runs
     * it on each event loop when idle.
     */
    public void dropCurrentBlock() {
        Cursor c = cursor.getIfExists();
        if (c != null && c.block != null) {
            Block b = c.block;
            c.block = null;
            b.release();
        }
    }

    /**
     * Frees slabs whose blocks no copy needed in the last {@link #SPARE_DECAY_SECONDS} (acting once per such window,
     * however often it is called); returns how much (bytes).
     */
    public long freeUnusedSpares() {
        return spares.freeUnused(System.nanoTime());
    }

    /** Frees every slab with no block in use; returns how much (bytes). */
    public long trim() {
        return spares.trim();
    }

    /**
     * Memory of the process's payload blocks, in use or kept for reuse: its slabs (bytes;
     * {@code felix_payload_block_bytes}).
     */
    public long blockBytes() {
        return spares.slabBytes();
    }

    /** Memory of the process's payload slabs now, in use or spare (bytes): what {@link #blockBytes()} shows. */
    public static long processSlabBytes() {
        return SpareBlocks.SHARED.slabBytes();
    }

    /**
     * Memory of the process's blocks in use now (bytes; {@code felix_payload_block_in_use_bytes}): each holds at least
     * one region still in use, or is a thread's current block.
     */
    public long inUseBytes() {
        return spares.inUseBytes();
    }

    /** Memory of the blocks kept for reuse now (bytes). */
    public long spareBytes() {
        return spares.bytes();
    }

    /**
     * Hands every thread's current block back, once the threads that copy have stopped (no copy is taken after it);
     * blocks still in use go back when their last region is released. The spares stay for the process.
     */
    @Override
    public void close() {
        List<Cursor> all;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            all = List.copyOf(cursors);
            cursors.clear();
        }
        for (Cursor c : all) {
            Block b = c.block;
            c.block = null;
            if (b != null) {
                b.release();
            }
        }
    }

    /** A thread's current block and where its free room starts. Only that thread touches it (and close, after). */
    private static final class Cursor {
        Block block;
        int offset;
    }

    /** One block of memory and its users; see the class comment. */
    static final class Block {
        private static final AtomicIntegerFieldUpdater<Block> USERS =
                AtomicIntegerFieldUpdater.newUpdater(Block.class, "users");

        final ByteBuf memory;
        /** The memory's address, or 0 when Netty has no access to addresses (then copies go through buffers). */
        final long address;
        private final SpareBlocks.Piece piece;
        private final SpareBlocks spares;
        @SuppressWarnings("unused") // through USERS
        private volatile int users = 1;

        private Block(SpareBlocks spares, SpareBlocks.Piece piece) {
            this.spares = spares;
            this.piece = piece;
            this.memory = piece.memory;
            this.address = memory.hasMemoryAddress() ? memory.memoryAddress() : 0;
        }

        void retain() {
            USERS.getAndIncrement(this);
        }

        void release() {
            int now = USERS.decrementAndGet(this);
            if (now == 0) {
                spares.put(piece); // no region uses it any more: kept for reuse
            } else if (now < 0) {
                throw new IllegalStateException("payload block released once too often");
            }
        }
    }
}
