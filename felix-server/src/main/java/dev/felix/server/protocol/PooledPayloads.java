package dev.felix.server.protocol;

import dev.felix.core.stream.LentPayloads;
import dev.felix.server.protocol.PayloadBlocks.Block;
import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.LongAdder;

/**
 * The events of a binary publish in pooled direct memory, as felix-core's {@link LentPayloads}: copied once out of
 * the received frame into {@link PayloadBlocks} (setting {@code pooled_payloads}), then held by the shard and its
 * subscribers' writes without another copy or any heap array, and written into delivery frames from here
 * ({@link #writeTo}).
 *
 * <p><b>Why a copy and not a slice of the frame.</b> A received frame is a slice of its stream's read buffer (up to
 * 64 KiB); a retained slice of it would keep that whole buffer for as long as the shard's ring keeps the event, so a
 * ring of small events could pin far more memory than its {@code ring_bytes} counts. The copy is exact in size and
 * goes into recycled blocks, so it leaves no garbage and faults no fresh pages in.
 *
 * <p><b>Parts.</b> A region is one run of bytes in one block (the common case: the fields {@code block} and
 * {@code start}), or several parts in order: a copy larger than its block's room continues in the next block, and
 * the regions of publishes a shard's writer merges ({@link #followedBy}) are listed one after another, parts that lie
 * back to back in the same block joined into one. An event may span two parts; every read here handles the seam.
 *
 * <p><b>References.</b> Counted here; each part holds one use of its block. The last {@link #release()} gives every
 * part's block back and takes the region's bytes off {@code felix_pooled_payload_bytes}. A region merged into another
 * is owned by it and never released on its own.
 */
final class PooledPayloads extends LentPayloads {

    private static final AtomicIntegerFieldUpdater<PooledPayloads> REFS =
            AtomicIntegerFieldUpdater.newUpdater(PooledPayloads.class, "refs");
    /** Whether an int may be read at any address (lengths lie wherever the previous event ended). */
    private static final boolean UNALIGNED = PlatformDependent.isUnaligned();

    /** The block of a region in one part, else null. */
    private final Block block;
    /** Where a region in one part starts in its block. */
    private final int start;
    /** The blocks of a region in several parts, in order, else null. */
    private final Block[] blocks;
    /** Where each of {@link #blocks}' parts starts in its block. */
    private final int[] starts;
    /** Position in the region just past each part. */
    private final int[] ends;
    private final LongAdder held;
    private final long bytes;
    @SuppressWarnings("unused") // through REFS
    private volatile int refs = 1;

    private PooledPayloads(Block block, int start, Block[] blocks, int[] starts, int[] ends, LongAdder held,
            long bytes) {
        this.block = block;
        this.start = start;
        this.blocks = blocks;
        this.starts = starts;
        this.ends = ends;
        this.held = held;
        this.bytes = bytes;
    }

    /** A region of {@code length} bytes at {@code start} of {@code block}, which it holds one use of. */
    static PooledPayloads single(Block block, int start, int length, LongAdder held) {
        return new PooledPayloads(block, start, null, null, null, held, length);
    }

    /** A region in parts (each holding one use of its block); {@code ends} as {@link #ends}. */
    static PooledPayloads parts(Block[] blocks, int[] starts, int[] ends, LongAdder held, long bytes) {
        if (blocks.length == 1) {
            return single(blocks[0], starts[0], ends[0], held);
        }
        return new PooledPayloads(null, 0, blocks, starts, ends, held, bytes);
    }

    /** Parts of this region (merged neighbours in one block are one part). */
    int parts() {
        return block != null ? 1 : blocks.length;
    }

    private Block blockOf(int part) {
        return block != null ? block : blocks[part];
    }

    /** The index in its block of the byte at {@code position}, which lies in {@code part}. */
    private int indexOf(int part, int position) {
        return block != null ? start + position : starts[part] + position - (part == 0 ? 0 : ends[part - 1]);
    }

    private int endOf(int part) {
        return block != null ? (int) bytes : ends[part];
    }

    /** The part holding {@code position}. */
    private int partAt(int position) {
        if (block != null) {
            return 0;
        }
        int i = Arrays.binarySearch(ends, position);
        return i >= 0 ? i + 1 : -i - 1; // a position equal to an end starts the next part
    }

    private void checkLive() {
        if (refs <= 0) {
            throw new IllegalStateException("pooled payloads read after their last release");
        }
    }

    /**
     * Appends the {@code length} bytes of the region at {@code position} to {@code dst}, part by part. The caller
     * holds a reference.
     */
    void writeTo(ByteBuf dst, int position, int length) {
        checkLive();
        dst.ensureWritable(length);
        int at = dst.writerIndex();
        long dstAddress = dst.hasMemoryAddress() ? dst.memoryAddress() : 0;
        for (int i = partAt(position); length > 0; i++) {
            int n = Math.min(length, endOf(i) - position);
            Block b = blockOf(i);
            int index = indexOf(i, position);
            if (b.address != 0 && dstAddress != 0) { // by address (ensureWritable made the room)
                PlatformDependent.copyMemory(b.address + index, dstAddress + at, n);
            } else {
                // The block's getBytes, not dst.writeBytes(block): a buffer of Netty's adaptive allocator writes
                // from another buffer through a ByteBuffer view of it made per call, measured at 1.4% of the
                // broker's CPU at fanout 10.
                b.memory.getBytes(index, dst, at, n);
            }
            at += n;
            position += n;
            length -= n;
        }
        dst.writerIndex(at);
    }

    @Override
    public int lengthAt(int position) {
        checkLive();
        int i = partAt(position);
        if (endOf(i) - position >= LENGTH_PREFIX) {
            Block b = blockOf(i);
            int index = indexOf(i, position);
            if (b.address != 0 && UNALIGNED) { // by address: through the block's slice, a read was four calls deep
                int value = PlatformDependent.getInt(b.address + index);
                return PlatformDependent.BIG_ENDIAN_NATIVE_ORDER ? value : Integer.reverseBytes(value);
            }
            return b.memory.getInt(index);
        }
        int value = 0; // the prefix spans the seam between two parts
        for (int k = 0; k < LENGTH_PREFIX; k++, position++) {
            if (position == endOf(i)) {
                i++;
            }
            value = value << 8 | blockOf(i).memory.getByte(indexOf(i, position)) & 0xFF;
        }
        return value;
    }

    @Override
    public void copy(int position, byte[] dst, int dstOffset, int length) {
        checkLive();
        for (int i = partAt(position); length > 0; i++) {
            int n = Math.min(length, endOf(i) - position);
            blockOf(i).memory.getBytes(indexOf(i, position), dst, dstOffset, n);
            position += n;
            dstOffset += n;
            length -= n;
        }
    }

    @Override
    public void copy(int position, ByteBuffer dst, int length) {
        checkLive();
        if (dst.remaining() < length) {
            throw new java.nio.BufferOverflowException();
        }
        int limit = dst.limit();
        try {
            for (int i = partAt(position); length > 0; i++) {
                int n = Math.min(length, endOf(i) - position);
                dst.limit(dst.position() + n);
                blockOf(i).memory.getBytes(indexOf(i, position), dst);
                position += n;
                length -= n;
            }
        } finally {
            dst.limit(limit);
        }
    }

    @Override
    public void retain() {
        int before = REFS.getAndIncrement(this);
        if (before <= 0) {
            REFS.getAndDecrement(this);
            throw new IllegalStateException("pooled payloads retained after their last release");
        }
    }

    @Override
    public void release() {
        int now = REFS.decrementAndGet(this);
        if (now > 0) {
            return;
        }
        if (now < 0) {
            throw new IllegalStateException("pooled payloads released once too often");
        }
        for (int i = 0, n = parts(); i < n; i++) {
            blockOf(i).release();
        }
        held.add(-bytes);
    }

    @Override
    public int references() {
        return REFS.get(this);
    }

    @Override
    public LentPayloads followedBy(LentPayloads[] others) {
        int n = parts();
        long total = bytes;
        for (LentPayloads o : others) {
            PooledPayloads p = (PooledPayloads) o;
            n += p.parts();
            total += p.bytes;
        }
        Block[] allBlocks = new Block[n];
        int[] allStarts = new int[n];
        int[] allEnds = new int[n];
        int k = addParts(this, allBlocks, allStarts, allEnds, 0);
        for (LentPayloads o : others) {
            k = addParts((PooledPayloads) o, allBlocks, allStarts, allEnds, k);
        }
        if (k < n) {
            allBlocks = Arrays.copyOf(allBlocks, k);
            allStarts = Arrays.copyOf(allStarts, k);
            allEnds = Arrays.copyOf(allEnds, k);
        }
        return parts(allBlocks, allStarts, allEnds, held, total); // takes over every part's use of its block
    }

    /**
     * Lists {@code p}'s parts from {@code k}, after those listed; a part that continues the one
     * before it in the same block is joined to it, and the use of the block it held is given back.
     */
    private static int addParts(PooledPayloads p, Block[] blocks, int[] starts, int[] ends, int k) {
        for (int i = 0, n = p.parts(); i < n; i++) {
            Block b = p.blockOf(i);
            int from = i == 0 ? 0 : p.ends[i - 1];
            int at = p.indexOf(i, from);
            int length = p.endOf(i) - from;
            if (k > 0 && blocks[k - 1] == b && starts[k - 1] + ends[k - 1] - (k == 1 ? 0 : ends[k - 2]) == at) {
                ends[k - 1] += length;
                b.release(); // the joined part still holds one use of it
                continue;
            }
            blocks[k] = b;
            starts[k] = at;
            ends[k] = (k == 0 ? 0 : ends[k - 1]) + length;
            k++;
        }
        return k;
    }
}
