package dev.felix.server.protocol;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicStreamChannel;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Writes a core feed (a subscription's deliveries, a watch's changes) to one QUIC stream, pulled: the core
 * signals that its queue has items ({@link #wake()}, any thread), one drain task runs on the stream's event
 * loop and writes while the stream is writable; when QUIC flow control stops it, the writability change
 * resumes it. A slow reader therefore fills its own queue in the core, where that queue's policy applies;
 * the core's writers never wait on the network.
 *
 * <p><b>Threads and buffers.</b> Event-loop confined except {@link #wake()}, which any thread may call. Subclasses
 * write unpooled frames that wrap encoded bytes (a batch's shared encoding, or a fresh JSON frame); each is
 * handed to {@code write}, after which Netty owns and releases it. Subclasses implement {@link #drain()} (write
 * what is queued while the channel is writable, flush once) and {@link #close()}.
 */
abstract class PulledWriter extends ChannelInboundHandlerAdapter {

    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = this::drainNow;
    /** The stream written to; set before the first wake. */
    protected QuicStreamChannel channel;
    /** Nothing more is written once set. Event loop only. */
    protected boolean closed;

    /**
     * The core has items: schedule one drain on the event loop (at most one pending). Any thread. Woken on the event loop
     * during a client stream's read (a shard writer running inline), the drain also runs when that read completes,
     * ahead of the task, which then finds nothing left ({@link ReadBurst}).
     */
    final void wake() {
        if (drainScheduled.compareAndSet(false, true)) {
            channel.eventLoop().execute(drainTask);
            ReadBurst.defer(drainTask, channel.eventLoop());
        }
    }

    /** Runs a drain on the event loop now (the pending flag is cleared first, so a wake during it counts). */
    final void drainNow() {
        drainScheduled.set(false);
        if (!closed) {
            drain();
        }
    }

    /** Writes what is queued while the channel is writable. */
    protected abstract void drain();

    /** Stops the feed (the reader went away or ended it); idempotent. */
    abstract void close();

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            drainNow();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        close();
        ctx.fireChannelInactive();
    }
}
