package dev.felix.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * Small frames of one burst copied into one buffer, so they leave in as few packets as they fill: a QUIC stream
 * sends at least one packet per buffer written to it, however many buffers one flush carries. A frame larger than
 * {@link #COPY_LIMIT} is not copied; it is written as it is, after what was merged before it, so order is kept.
 *
 * <p>Used by {@link CoalescedFlush} (replies of the broker's session stream), and directly by writers that already
 * gather a burst on the event loop (the SDK's publish stream, the broker's acknowledgements).
 *
 * <p><b>Threads and buffers.</b> Confined to the channel's event loop. A frame handed to {@link #add} is owned (and
 * released) here from the call on; a merged buffer is the channel's once written, or the caller's once
 * {@link #take taken}. Promises of merged frames complete when the merged buffer's write does.
 */
public final class FrameBatch {

    /** A merged buffer is written once it holds this much, so one burst never builds an unbounded copy. */
    public static final int MAX_MERGED_BYTES = 64 << 10;
    /** Frames up to this size are copied; a larger one already fills packets on its own. */
    static final int COPY_LIMIT = 16 << 10;

    private final Channel channel;
    private ByteBuf merged;
    /** Promises of the frames in {@link #merged} (null while none is a real promise). */
    private List<ChannelPromise> promises;

    public FrameBatch(Channel channel) {
        this.channel = channel;
    }

    /** Whether nothing is merged. */
    public boolean isEmpty() {
        return merged == null;
    }

    /**
     * Adds {@code frame} (released here); {@code promise} (or null) completes when it is written. Written directly,
     * after the merged frames, when it is larger than the copy limit.
     */
    public void add(ByteBuf frame, ChannelPromise promise) {
        int len = frame.readableBytes();
        if (len > COPY_LIMIT) {
            write();
            channel.write(frame, promise != null ? promise : channel.voidPromise());
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
     * (a frame with no promise of its own). The buffer merged so far is written first when {@code len} more
     * would take it past {@link #MAX_MERGED_BYTES}.
     */
    public ByteBuf room(int len) {
        if (merged != null && merged.readableBytes() + len > MAX_MERGED_BYTES) {
            write();
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

    /** Writes (without flushing) what is merged. */
    public void write() {
        ByteBuf b = merged;
        if (b == null) {
            return;
        }
        merged = null;
        List<ChannelPromise> waiting = promises;
        promises = null;
        if (waiting == null) {
            channel.write(b, channel.voidPromise());
        } else {
            channel.write(b).addListener(f -> complete(f, waiting));
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
        ByteBuf b = merged;
        merged = null;
        return b;
    }

    /** Releases what is merged and fails its promises (the channel is gone). */
    public void discard(Throwable cause) {
        if (merged != null) {
            merged.release();
            merged = null;
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
