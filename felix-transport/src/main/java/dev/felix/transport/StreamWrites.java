package dev.felix.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.atomic.LongAdder;

/**
 * Writes to a QUIC stream that never leave a buffer stranded by Netty.
 *
 * <p><b>Why.</b> In Netty 4.2.18's QUIC stream, a write that quiche takes only part of sends the connection's packets
 * and reschedules the connection's timer before it queues the rest. When that timer is already past due (the event
 * loop was busy when it fell due: the draining period after the peer's close, or an idle timeout), the connection is
 * closed right there, inside the write, with all its streams, whose queues are empty at that moment. Then the rest of
 * the buffer is queued on the closed stream, where nothing will ever write it, fail it or release it: the buffer is
 * lost and its promise never completes. The leak soak found one such buffer in 20 minutes; {@code StrandedWriteTest}
 * makes it happen every time.
 *
 * <p>A stream that is inactive when the write returns, while the write's promise is not done (or its buffer, ours
 * alone, is still referenced), is in exactly that state: every other way a stream closes fails its queued writes
 * before it reports itself closed, and a write to a closed stream fails at once. So the buffer is released here and
 * the promise failed with a {@link ClosedChannelException}. Netty never looks at that queue again (the stream is gone
 * from its connection, which is freed). Counted in {@link #stranded()}.
 *
 * <p><b>Threads.</b> Only on the channel's event loop (a write from elsewhere is queued, so its state says nothing
 * when the call returns; the check is skipped there).
 */
public final class StreamWrites {

    private static final LongAdder STRANDED = new LongAdder();

    private StreamWrites() {
    }

    /**
     * Writes {@code msg}, of which the caller holds the only reference (a buffer it made: a copy, a merged or gathered
     * buffer), with {@code promise} (void or not).
     */
    public static void writeOwned(Channel channel, ByteBuf msg, ChannelPromise promise) {
        channel.write(msg, promise);
        if (!channel.isActive() && channel.eventLoop().inEventLoop()
                && (promise.isVoid() ? msg.refCnt() > 0 : !promise.isDone())) {
            stranded(msg, promise);
        }
    }

    /**
     * Writes {@code msg}, which may share its reference count with other buffers (a frame several streams write), with
     * {@code promise}; a void promise is replaced by one of the write's own, as a shared count says nothing.
     */
    public static void writeShared(Channel channel, ByteBuf msg, ChannelPromise promise) {
        ChannelPromise p = promise.isVoid() ? channel.newPromise() : promise;
        channel.write(msg, p);
        if (!channel.isActive() && channel.eventLoop().inEventLoop() && !p.isDone()) {
            stranded(msg, p);
        }
    }

    /** Buffers released here because a stream closed during their write had stranded them. */
    public static long stranded() {
        return STRANDED.sum();
    }

    private static void stranded(ByteBuf msg, ChannelPromise promise) {
        STRANDED.increment();
        msg.release();
        if (!promise.isVoid()) {
            promise.tryFailure(new ClosedChannelException());
        }
    }
}
