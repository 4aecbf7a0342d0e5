package dev.felix.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.quic.DefaultQuicStreamFrame;
import io.netty.util.ReferenceCounted;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;

/**
 * Writes to a QUIC stream that never leave a buffer stranded by Netty. Every write of the broker and the SDK to a
 * stream goes through here, except the SDK's authentication frame (the first and smallest frame on a new stream,
 * which the stream's window always takes whole: only a write that quiche takes part of can strand).
 *
 * <p><b>Why.</b> In Netty 4.2.18's QUIC stream, a write that quiche takes only part of sends the connection's packets
 * and reschedules the connection's timer before it queues the rest. When that timer is already past due (the event
 * loop was busy when it fell due), the connection is closed right there, inside the write, with all its streams,
 * whose queues are empty at that moment. Then the rest of the buffer is queued on the closed stream, where nothing
 * will ever write it, fail it or release it: the buffer is lost and its promise never completes. Two timers do this:
 * the end of the draining period after the peer's close, and the idle timeout of a peer gone silent (frozen, or its
 * packets lost) once this side has sent something it must acknowledge, since a send then no longer restarts the idle
 * timer. The leak soak found one such buffer in 20 minutes; {@code StrandedWriteTest},
 * {@code StrandedReplyWriteTest} and {@code StrandedFrameStreamWriteTest} make it happen every time.
 *
 * <p>A stream that is inactive when the write returns, while the write's promise is not done (or its buffer, ours
 * alone, is still held by the stream), is in exactly that state: every other way a stream closes fails its queued
 * writes before it reports itself closed, and a write to a closed stream fails at once. So the buffer is released
 * here and the promise failed with a {@link ClosedChannelException}. Netty never looks at that queue again (the stream
 * is gone from its connection, which is freed). Counted in {@link #stranded()}.
 *
 * <p><b>Threads.</b> On the channel's event loop the write is checked as it returns. From another thread the write is
 * queued (Netty runs it as a task), and the check follows it as the next task of ours; tasks run in order.
 */
public final class StreamWrites {

    private static final LongAdder STRANDED = new LongAdder();

    private StreamWrites() {
    }

    /**
     * Writes {@code msg}, of which the caller holds the only reference (a frame encoded for this write, a merged or
     * gathered buffer), with {@code promise} (void or not). A heap buffer is copied into direct memory first
     * ({@link DirectBuffers#direct}), as the stream would copy it otherwise, out of sight of this check.
     */
    public static void writeOwned(Channel channel, ByteBuf msg, ChannelPromise promise) {
        write(channel, DirectBuffers.direct(channel.alloc(), msg), promise);
    }

    /**
     * Writes {@code last} and the stream's FIN in one STREAM frame (see {@link StreamEnds#writeLast}), owned as by
     * {@link #writeOwned}.
     */
    public static void writeLastOwned(Channel channel, ByteBuf last, ChannelPromise promise) {
        write(channel, new DefaultQuicStreamFrame(DirectBuffers.direct(channel.alloc(), last), true), promise);
    }

    /**
     * Writes {@code msg}, which may share its reference count with other buffers (a frame several streams write), with
     * {@code promise}; a void promise is replaced by one of the write's own, as a shared count says nothing.
     */
    public static void writeShared(Channel channel, ByteBuf msg, ChannelPromise promise) {
        write(channel, msg, promise.isVoid() ? channel.newPromise() : promise);
    }

    /** Buffers released here because a stream closed during their write had stranded them. */
    public static long stranded() {
        return STRANDED.sum();
    }

    private static void write(Channel channel, ReferenceCounted msg, ChannelPromise promise) {
        if (!channel.eventLoop().inEventLoop()) {
            ChannelPromise p = promise.isVoid() ? channel.newPromise() : promise;
            channel.write(msg, p);
            try {
                channel.eventLoop().execute(() -> {
                    if (!p.isDone() && !channel.isActive()) {
                        stranded(msg, p);
                    }
                });
            } catch (RejectedExecutionException shutDown) {
                // The loop is shutting down: Netty either refused the write too (failing it and releasing msg) or
                // runs it among the tasks it finishes before stopping, unchecked; the connection is going anyway.
            }
            return;
        }
        if (promise.isVoid()) {
            // Without a promise, the buffer's count says whether the stream still holds it. Our own reference keeps
            // the buffer from being released and recycled (pooled buffers reuse their objects) during the write,
            // so the count read after it is this buffer's, not that of whatever the object became.
            msg.retain();
            channel.write(msg, promise);
            boolean held = msg.refCnt() > 1;
            msg.release();
            if (held && !channel.isActive()) {
                stranded(msg, promise);
            }
            return;
        }
        channel.write(msg, promise);
        if (!promise.isDone() && !channel.isActive()) {
            stranded(msg, promise);
        }
    }

    private static void stranded(ReferenceCounted msg, ChannelPromise promise) {
        STRANDED.increment();
        msg.release();
        if (!promise.isVoid()) {
            promise.tryFailure(new ClosedChannelException());
        }
    }
}
