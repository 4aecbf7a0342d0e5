package dev.felix.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * The frames of one burst handed to the stream in as few writes as possible. A QUIC stream sends at least one packet
 * per buffer written to it, and sends what each write gave it at once (outside a read), however many buffers one
 * flush carries. So small frames are copied into one pooled buffer; a frame larger than {@link #COPY_LIMIT} fills
 * packets on its own and is not worth a copy.
 *
 * <ul>
 *   <li>By default ({@link #FrameBatch(Channel)}) such a large frame is written on its own, after the frames merged
 *       before it, and a merged buffer is written once it holds {@link #MAX_MERGED_BYTES}.</li>
 *   <li>{@link #gathering(Channel)} instead gathers large frames and full merged buffers, in order, into one composite
 *       buffer: one write, whose parts quiche takes one after the other, up to {@link #MAX_WRITE_BYTES} or
 *       {@link #MAX_PARTS} parts. Only for a stream whose end the writer learns otherwise than from a failed write:
 *       Netty's QUIC stream reports a write of several buffers to a stream the peer stopped ({@code STOP_SENDING}) as
 *       not yet written, not as failed (the broker's multiplexed subscription stream, which ends with its
 *       connection or by messages).</li>
 * </ul>
 *
 * <p>Used by {@link CoalescedFlush} (replies of the broker's session stream), and directly by writers that already
 * gather a burst on the event loop (the SDK's publish stream, the broker's acknowledgements and event streams).
 *
 * <p><b>Threads and buffers.</b> Confined to the channel's event loop. A frame handed to {@link #add} is owned (and
 * released) here from the call on; a written buffer is the channel's once written, or the caller's once
 * {@link #take taken}. Promises of the frames of a write complete when that write does. A large frame on the heap is
 * copied into a direct buffer first ({@link DirectBuffers#copyOf}: QUIC hands quiche direct memory only, and Netty's
 * stream would copy it into a pooled buffer of any size). Writes go through {@link StreamWrites}, so a write that
 * closes its own stream never strands its buffer.
 */
public final class FrameBatch {

    /** A merged buffer is closed once it holds this much, so one burst never builds an unbounded copy. */
    public static final int MAX_MERGED_BYTES = 64 << 10;
    /** Frames up to this size are copied; a larger one already fills packets on its own. */
    public static final int COPY_LIMIT = 16 << 10;
    /** One write carries at most about this much: what is gathered is written once it holds this much. */
    public static final int MAX_WRITE_BYTES = 1 << 20;
    /** Parts of one gathered write at most (a composite buffer past its limit would copy its parts into one). */
    static final int MAX_PARTS = 64;

    private final Channel channel;
    /** Whether large frames and full merged buffers are gathered into one write instead of written on their own. */
    private final boolean gather;
    /** The buffer small frames are copied into now. */
    private ByteBuf merged;
    /** The parts of the next write, in order, once it has more than one: closed merged buffers and large frames. */
    private CompositeByteBuf gathered;
    /** Promises of the frames in {@link #merged} (null while none is a real promise). */
    private List<ChannelPromise> promises;
    /** Whether the buffer {@link #takeAll} returned last is this batch's alone (see {@link StreamWrites}). */
    private boolean takenOwned;

    /** A batch that writes a large frame, or a full merged buffer, on its own. */
    public FrameBatch(Channel channel) {
        this(channel, false);
    }

    private FrameBatch(Channel channel, boolean gather) {
        this.channel = channel;
        this.gather = gather;
    }

    /** A batch that gathers a burst's large frames and merged buffers into one write (see the class comment). */
    public static FrameBatch gathering(Channel channel) {
        return new FrameBatch(channel, true);
    }

    /** Whether nothing is waiting to be written. */
    public boolean isEmpty() {
        return merged == null && gathered == null;
    }

    /**
     * Adds {@code frame} (released here); {@code promise} (or null) completes when it is written. A frame larger than
     * the copy limit is not copied: it is written as it is after the frames added before it (gathering: in the same
     * write).
     */
    public void add(ByteBuf frame, ChannelPromise promise) {
        int len = frame.readableBytes();
        if (len > COPY_LIMIT) {
            // QUIC hands quiche direct memory only: a heap frame is copied here, where its size picks the buffer,
            // rather than by Netty's stream, which would take any size from the pool (see DirectBuffers).
            ByteBuf part;
            try {
                part = DirectBuffers.direct(channel.alloc(), frame);
            } catch (RuntimeException | Error e) { // no direct memory left: the frame is released, its promise fails
                if (promise != null) {
                    promise.tryFailure(e);
                }
                throw e;
            }
            if (!gather) {
                write();
                ChannelPromise p = promise != null ? promise : channel.voidPromise();
                if (part != frame) {
                    StreamWrites.writeOwned(channel, part, p);
                } else {
                    StreamWrites.writeShared(channel, part, p);
                }
                return;
            }
            attach(promise);
            gather(part);
            return;
        }
        try {
            room(len).writeBytes(frame);
        } finally {
            frame.release();
        }
        attach(promise);
    }

    /**
     * The merged buffer with at least {@code len} writable bytes, for a caller that encodes a frame straight into it
     * (a frame with no promise of its own). The buffer merged so far is written first (gathering: closed, to join the
     * write as one of its parts) when {@code len} more would take it past {@link #MAX_MERGED_BYTES}.
     */
    public ByteBuf room(int len) {
        if (merged != null && merged.readableBytes() + len > MAX_MERGED_BYTES) {
            if (gather) {
                gather(null); // closes the merged buffer: it joins the write as one of its parts
            } else {
                write();
            }
        }
        if (merged == null) {
            merged = channel.alloc().directBuffer(Math.max(len, 2048), Math.max(len, MAX_MERGED_BYTES));
        }
        merged.ensureWritable(len);
        return merged;
    }

    /** Completes {@code promise} (ignored when null or void) with the write of the frame just merged. */
    private void attach(ChannelPromise promise) {
        if (promise == null || promise.isVoid()) {
            return;
        }
        if (promises == null) {
            promises = new ArrayList<>(4);
        }
        promises.add(promise);
    }

    /**
     * Closes the merged buffer into the parts of the write, then adds {@code part} (if not null); writes once the parts
     * hold {@link #MAX_WRITE_BYTES} or {@link #MAX_PARTS}.
     */
    private void gather(ByteBuf part) {
        if (merged != null) {
            ByteBuf m = merged;
            merged = null;
            addPart(m);
        }
        if (part != null) {
            addPart(part);
        }
        if (gathered != null && (gathered.readableBytes() >= MAX_WRITE_BYTES || gathered.numComponents() >= MAX_PARTS)) {
            write();
        }
    }

    private void addPart(ByteBuf part) {
        if (gathered == null) {
            gathered = channel.alloc().compositeDirectBuffer(MAX_PARTS + 1);
        }
        gathered.addComponent(true, part);
    }

    /**
     * What the next write carries, now taken: the gathered parts with the merged buffer last, or the merged buffer.
     * Sets {@link #takenOwned}.
     */
    private ByteBuf takeAll() {
        takenOwned = true;
        if (gathered == null) {
            ByteBuf b = merged;
            merged = null;
            return b;
        }
        if (merged != null) {
            gathered.addComponent(true, merged);
            merged = null;
        }
        CompositeByteBuf b = gathered;
        gathered = null;
        if (b.numComponents() == 1) { // one buffer after all: write it as it is
            ByteBuf only = b.component(0).retain();
            b.release();
            takenOwned = false; // perhaps a caller's frame, whose count others share
            return only;
        }
        return b;
    }

    /** Writes (without flushing) what is merged and gathered, as one buffer. */
    public void write() {
        ByteBuf b = takeAll();
        if (b == null) {
            return;
        }
        List<ChannelPromise> waiting = promises;
        promises = null;
        ChannelPromise p = waiting == null ? channel.voidPromise() : channel.newPromise();
        if (waiting != null) {
            p.addListener(f -> complete(f, waiting));
        }
        if (takenOwned) {
            StreamWrites.writeOwned(channel, b, p);
        } else {
            StreamWrites.writeShared(channel, b, p);
        }
    }

    /**
     * Hands over the merged buffer (null when empty) for the caller to write itself, e.g. with the stream's FIN.
     * Only for batches whose frames carry no promise.
     */
    public ByteBuf take() {
        if (promises != null) {
            throw new IllegalStateException("merged frames wait for their promises: write() them");
        }
        return takeAll();
    }

    /** Releases what is merged and gathered and fails its promises (the channel is gone). */
    public void discard(Throwable cause) {
        ByteBuf b = takeAll();
        if (b != null) {
            b.release();
        }
        if (promises != null) {
            promises.forEach(p -> p.tryFailure(cause));
            promises = null;
        }
    }

    private static void complete(Future<? super Void> write, List<ChannelPromise> waiting) {
        for (ChannelPromise p : waiting) {
            if (write.isSuccess()) {
                p.trySuccess();
            } else {
                p.tryFailure(write.cause());
            }
        }
    }
}
