package dev.felix.server.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Where payload blocks come from and go back to: slabs of {@link PayloadBlocks#SLAB_BYTES} cut into blocks, the blocks no region
 * uses kept for the next copies instead of freed; one list per process ({@link #SHARED}), so a broker started in a
 * process where another ran (a benchmark's fresh broker per run, a test suite) copies into memory already mapped, as
 * the heap's arrays would be.
 *
 * <p><b>Why slabs of 32 MiB.</b> The C library serves an allocation of its mmap threshold or more (at most 32 MiB, the
 * ceiling its dynamic threshold never passes) with a mapping of its own, and smaller ones from the heap of the calling
 * thread's arena. Blocks allocated one by one (64 KiB) lived in the event loops' C heaps beside quiche's short-lived
 * send buffers, which then found less room to reuse and grew the heap into fresh pages: measured, the kernel's page
 * clearing at three times the heap-array path's share of the broker's CPU (docs/benchmarks.md, "Payload blocks"). A
 * 32 MiB slab is always a mapping of its own; only the pages used are resident.
 *
 * <p><b>Decay.</b> Blocks are kept while load lasts. Once per window of {@link PayloadBlocks#SPARE_DECAY_SECONDS}
 * ({@link #freeUnused}, which every broker calls each second), slabs whose blocks are all spare are freed, as many as
 * the spares no copy needed in that window cover; {@link #trim} frees every slab whose blocks are all spare. A slab
 * with one block in use stays whole.
 *
 * <p><b>Order.</b> The most recently released block is taken first (its memory is the likeliest in cache and already
 * resident).
 *
 * <p><b>Leaks.</b> Netty's leak detection covers the slabs; a region never released keeps its block out (and counts in
 * {@code felix_pooled_payload_bytes}), which the tests assert against.
 *
 * <p><b>Threads.</b> Thread-safe: every method takes this object's lock, once per block, not per copy. Slab memory is
 * freed outside it.
 */
final class SpareBlocks {

    /** The process's blocks of {@link PayloadBlocks#BLOCK_BYTES}. */
    static final SpareBlocks SHARED = new SpareBlocks(PayloadBlocks.BLOCK_BYTES, PayloadBlocks.SLAB_BYTES);

    private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(PayloadBlocks.SPARE_DECAY_SECONDS);

    final int blockBytes;
    private final int slabBytes;
    private final List<Slab> slabs = new ArrayList<>();
    private Piece[] spare = new Piece[16];
    private int count;
    /** The fewest spares there were in the current window: those no copy needed. */
    private int fewest;
    private long windowStart = System.nanoTime();

    SpareBlocks(int blockBytes, int slabBytes) {
        if (slabBytes < blockBytes || slabBytes % blockBytes != 0) {
            throw new IllegalArgumentException("a slab holds a whole number of blocks");
        }
        this.blockBytes = blockBytes;
        this.slabBytes = slabBytes;
    }

    /** A block of one slab: its memory (a view made once) and the slab it is cut from. */
    static final class Piece {
        final ByteBuf memory;
        private final Slab slab;

        private Piece(Slab slab, ByteBuf memory) {
            this.slab = slab;
            this.memory = memory;
        }
    }

    private static final class Slab {
        final ByteBuf memory;
        /** Its blocks taken and not yet handed back. */
        int out;
        /** Taken off the list to be freed: its blocks are dropped from the spares. */
        boolean freed;

        Slab(ByteBuf memory) {
            this.memory = memory;
        }
    }

    /** A spare block, cutting a new slab when there is none. */
    synchronized Piece take() {
        if (count == 0) {
            fewest = 0;
            addSlab();
        }
        Piece p = spare[--count];
        spare[count] = null;
        fewest = Math.min(fewest, count);
        p.slab.out++;
        return p;
    }

    private void addSlab() {
        Slab slab = new Slab(UnpooledByteBufAllocator.DEFAULT.directBuffer(slabBytes, slabBytes));
        slabs.add(slab);
        for (int at = slabBytes - blockBytes; at >= 0; at -= blockBytes) { // the slab's start is taken first
            push(new Piece(slab, slab.memory.slice(at, blockBytes)));
        }
    }

    /** Keeps a block no region uses any more. */
    synchronized void put(Piece p) {
        p.slab.out--;
        push(p);
    }

    private void push(Piece p) {
        if (count == spare.length) {
            spare = Arrays.copyOf(spare, count * 2);
        }
        spare[count++] = p;
    }

    /**
     * Once a window has passed since the last time it acted, frees the slabs whose blocks are all spare, as many as
     * the spares no copy needed in the window cover, and starts the next window; returns how much it freed (bytes).
     */
    long freeUnused(long nowNanos) {
        List<Slab> freed;
        synchronized (this) {
            if (nowNanos - windowStart < WINDOW_NANOS) {
                return 0;
            }
            windowStart = nowNanos;
            freed = removeFreeSlabs(fewest / (slabBytes / blockBytes));
            fewest = count;
        }
        return free(freed);
    }

    /** Frees every slab whose blocks are all spare; returns how much (bytes). */
    long trim() {
        List<Slab> freed;
        synchronized (this) {
            freed = removeFreeSlabs(Integer.MAX_VALUE);
            fewest = Math.min(fewest, count);
        }
        return free(freed);
    }

    /** Takes up to {@code most} slabs with no block out off the lists (under the lock). */
    private List<Slab> removeFreeSlabs(int most) {
        List<Slab> freed = new ArrayList<>();
        for (int i = slabs.size() - 1; i >= 0 && freed.size() < most; i--) {
            if (slabs.get(i).out == 0) {
                Slab slab = slabs.remove(i);
                slab.freed = true;
                freed.add(slab);
            }
        }
        if (!freed.isEmpty()) {
            int kept = 0;
            for (int i = 0; i < count; i++) {
                if (!spare[i].slab.freed) {
                    spare[kept++] = spare[i];
                }
            }
            Arrays.fill(spare, kept, count, null);
            count = kept;
        }
        return freed;
    }

    private long free(List<Slab> freed) {
        for (Slab s : freed) {
            s.memory.release();
        }
        return (long) freed.size() * slabBytes;
    }

    /** Memory of the spare blocks now (bytes). */
    synchronized long bytes() {
        return (long) count * blockBytes;
    }

    /** Memory of the blocks in use now: every slab's but the spares (bytes). */
    synchronized long inUseBytes() {
        return (long) slabs.size() * slabBytes - (long) count * blockBytes;
    }

    /** Memory of every slab now, its blocks in use or spare (bytes). */
    synchronized long slabBytes() {
        return (long) slabs.size() * slabBytes;
    }
}
