package dev.felix.server.protocol;

import dev.felix.core.stream.LentPayloads;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.LongAdder;

/**
 * The events of a binary publish in one pooled direct buffer, as felix-core's {@link LentPayloads}: copied once out of
 * the received frame (setting {@code pooled_payloads}), then held by the shard and its subscribers' writes without
 * another copy or any heap array, and written into delivery frames from here ({@link #writeTo}).
 *
 * <p><b>Why a copy and not a slice of the frame.</b> A received frame is a slice of its stream's read buffer (up to
 * 64 KiB); a retained slice of it would keep that whole buffer for as long as the shard's ring keeps the event, so a
 * ring of small events could pin far more memory than its {@code ring_bytes} counts. The copy is exact in size and
 * comes from the pool, so it leaves no garbage behind. (It does take page faults: the memory the ring lets go goes
 * back to the system and is faulted in again, which is why {@code pooled_payloads} is off by default.)
 *
 * <p><b>Merged publishes.</b> The regions of publishes a shard's writer merges ({@link #followedBy}) stay the buffers
 * they are, listed in order, not a Netty {@code CompositeByteBuf}: the adaptive allocator's buffers copy from a
 * composite through a heap array it allocates, which is the garbage this class exists to avoid. An event never spans
 * two buffers.
 *
 * <p><b>References.</b> Counted here; the last {@link #release()} releases every buffer and takes their bytes off
 * {@code felix_pooled_payload_bytes}. A region merged into another is owned by it and never released on its own.
 */
final class PooledPayloads extends LentPayloads {

    private static final AtomicIntegerFieldUpdater<PooledPayloads> REFS =
            AtomicIntegerFieldUpdater.newUpdater(PooledPayloads.class, "refs");

    /** The buffer of a region that was not merged, else null. */
    private final ByteBuf single;
    /** The buffers of a merged region in order, else null. */
    private final ByteBuf[] parts;
    /** Position in the region just past each of {@link #parts}. */
    private final int[] ends;
    private final LongAdder held;
    private final long bytes;
    @SuppressWarnings("unused") // through REFS
    private volatile int refs = 1;

    private PooledPayloads(ByteBuf single, ByteBuf[] parts, int[] ends, LongAdder held, long bytes) {
        this.single = single;
        this.parts = parts;
        this.ends = ends;
        this.held = held;
        this.bytes = bytes;
    }

    /**
     * A copy of the {@code length} bytes at {@code at} of {@code frame} (relative to its position, which is left as it
     * was) into a pooled buffer from {@code alloc}; {@code held} counts its bytes until the last release.
     */
    static PooledPayloads copyOf(ByteBuffer frame, int at, int length, ByteBufAllocator alloc, LongAdder held) {
        ByteBuf events = alloc.directBuffer(length, length);
        int position = frame.position();
        int limit = frame.limit();
        try {
            frame.position(position + at).limit(position + at + length);
            events.writeBytes(frame); // a buffer to buffer copy: no view of either is allocated
        } catch (RuntimeException e) {
            events.release();
            throw e;
        } finally {
            frame.limit(limit).position(position);
        }
        held.add(length);
        return new PooledPayloads(events, null, null, held, length);
    }

    /**
     * Appends the {@code length} bytes of the region at {@code position} to {@code dst}, buffer by buffer. The caller
     * holds a reference.
     */
    void writeTo(ByteBuf dst, int position, int length) {
        if (single != null) {
            dst.writeBytes(single, position, length);
            return;
        }
        for (int i = partAt(position); length > 0; i++) {
            int start = i == 0 ? 0 : ends[i - 1];
            int n = Math.min(length, ends[i] - position);
            dst.writeBytes(parts[i], position - start, n);
            position += n;
            length -= n;
        }
    }

    @Override
    public int lengthAt(int position) {
        if (single != null) {
            return single.getInt(position);
        }
        int i = partAt(position);
        return parts[i].getInt(position - (i == 0 ? 0 : ends[i - 1]));
    }

    @Override
    public void copy(int position, byte[] dst, int dstOffset, int length) {
        if (single != null) {
            single.getBytes(position, dst, dstOffset, length);
            return;
        }
        for (int i = partAt(position); length > 0; i++) { // a run of events may span parts
            int n = Math.min(length, ends[i] - position);
            parts[i].getBytes(position - (i == 0 ? 0 : ends[i - 1]), dst, dstOffset, n);
            position += n;
            dstOffset += n;
            length -= n;
        }
    }

    @Override
    public void copy(int position, ByteBuffer dst, int length) {
        if (dst.remaining() < length) {
            throw new java.nio.BufferOverflowException();
        }
        int limit = dst.limit();
        try {
            if (single != null) {
                dst.limit(dst.position() + length);
                single.getBytes(position, dst);
                return;
            }
            for (int i = partAt(position); length > 0; i++) { // a run of events may span parts
                int n = Math.min(length, ends[i] - position);
                dst.limit(dst.position() + n);
                parts[i].getBytes(position - (i == 0 ? 0 : ends[i - 1]), dst);
                position += n;
                length -= n;
            }
        } finally {
            dst.limit(limit);
        }
    }

    /** The index of the part holding {@code position}. */
    private int partAt(int position) {
        int i = Arrays.binarySearch(ends, position);
        return i >= 0 ? i + 1 : -i - 1; // a position equal to an end starts the next part
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
        if (single != null) {
            single.release();
        } else {
            for (ByteBuf p : parts) {
                p.release();
            }
        }
        held.add(-bytes);
    }

    @Override
    public int references() {
        return REFS.get(this);
    }

    @Override
    public LentPayloads followedBy(LentPayloads[] others) {
        int n = partCount();
        for (LentPayloads o : others) {
            n += ((PooledPayloads) o).partCount();
        }
        ByteBuf[] all = new ByteBuf[n];
        int[] allEnds = new int[n];
        int k = addParts(this, all, allEnds, 0, 0);
        long total = bytes;
        for (LentPayloads o : others) {
            PooledPayloads p = (PooledPayloads) o;
            k = addParts(p, all, allEnds, k, allEnds[k - 1]);
            total += p.bytes;
        }
        return new PooledPayloads(null, all, allEnds, held, total); // takes over every part's reference
    }

    private int partCount() {
        return single != null ? 1 : parts.length;
    }

    /** Lists {@code p}'s buffers in {@code all} from {@code k}, its positions shifted by {@code base}. */
    private static int addParts(PooledPayloads p, ByteBuf[] all, int[] allEnds, int k, int base) {
        if (p.single != null) {
            all[k] = p.single;
            allEnds[k] = base + (int) p.bytes;
            return k + 1;
        }
        for (int i = 0; i < p.parts.length; i++) {
            all[k] = p.parts[i];
            allEnds[k] = base + p.ends[i];
            k++;
        }
        return k;
    }
}
