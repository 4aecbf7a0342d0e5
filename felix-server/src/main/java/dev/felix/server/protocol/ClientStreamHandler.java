package dev.felix.server.protocol;

import dev.felix.core.ErrorCode;
import dev.felix.server.metrics.Closes;
import dev.felix.transport.FrameDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.handler.codec.quic.QuicStreamChannel;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of one client-opened stream: frames in, in order, to the {@link RequestDispatcher}; reading
 * paused while a publish waits for its shard (frames already decoded wait in a small backlog); and the end of
 * the stream — a truncated frame at the client's end is an error, and once the client has finished its side
 * ours is finished as soon as every reply owed is written.
 *
 * <p><b>Threads and buffers.</b> Not sharable; confined to the stream's event loop. Each decoded frame
 * arrives retained from {@code FrameDecoder}; this handler releases it after handling, or keeps it in the backlog
 * (owning it) and releases it there, or when the session closes with frames still waiting.
 *
 * <p><b>Errors end only this stream.</b> A malformed frame, bad JSON, an unknown type or a message before
 * {@code auth} gets a typed {@code error} and the stream is closed; the connection and its other streams
 * carry on. Requests that are well formed but refused get an error reply and the stream stays open.
 */
final class ClientStreamHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(ClientStreamHandler.class);

    private final ServerContext context;
    private StreamSession session;
    private RequestDispatcher dispatcher;
    private boolean inputEnded;
    private Runnable inputEndListener;
    /** Bytes of an incomplete frame the decoder held when the client's side ended (see {@link #endOfInputProbe}). */
    private int pendingAtInputEnd;
    /** Ingress backpressure: frames read while a publish waits for its shard. */
    private final ArrayDeque<ByteBuf> backlog = new ArrayDeque<>();

    ClientStreamHandler(ServerContext context) {
        this.context = context;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        QuicStreamChannel channel = (QuicStreamChannel) ctx.channel();
        ConnectionHandler connection = channel.parent().attr(ConnectionHandler.KEY).get();
        session = new StreamSession(context, channel, connection, this::releaseBacklog);
        dispatcher = new RequestDispatcher(session, this);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof FrameDecoder.BadHeader bad) {
            dev.felix.core.FelixError error = Frames.badHeader(bad, ctx.channel()); // too_large (logged) or bad_request
            session.fail(error.code(), error.message());
            return;
        }
        ByteBuf frame = (ByteBuf) msg;
        ReadBurst.begin();
        if (!session.serving()) {
            frame.release();
            return;
        }
        if (dispatcher.publishes().waiting()) {
            backlog.add(frame); // ownership moves to the backlog
            return;
        }
        try {
            dispatcher.handle(frame);
        } finally {
            frame.release();
        }
    }

    /**
     * The read is complete: first the deliveries that publishes in it made (a shard writer runs inline on this event
     * loop), then this stream's replies, in the datagram that acknowledges the read.
     */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ReadBurst.end();
        AckWriter acks = session.acks();
        if (acks != null) {
            acks.flushPending();
        }
        ctx.fireChannelReadComplete();
    }

    /** The publish that paused reading went through: handle the backlog, then read again. */
    void resumed() {
        while (!dispatcher.publishes().waiting() && !backlog.isEmpty() && session.serving()) {
            ByteBuf frame = backlog.poll();
            try {
                dispatcher.handle(frame);
            } finally {
                frame.release();
            }
        }
        if (!dispatcher.publishes().waiting() && !session.closed()) {
            session.channel.config().setAutoRead(true);
            session.channel.read();
            finishIfDone();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        boolean clientFinished = inputEnded;
        session.markClosed();
        inputEnded();
        countClose(clientFinished);
        ctx.fireChannelInactive();
    }

    /**
     * Counts the end of this stream once, by who ended it: what the broker recorded (an error it answered, its
     * shutdown); else the connection's close; else the client, if it finished its side first (a request stream's
     * normal end); else the transport (reset or failed under us). The broker's own closes that carry no error
     * frame, and every abnormal end, are logged at INFO (expected) or WARN; the client's normal ends, one per
     * request, only at DEBUG.
     */
    private void countClose(boolean clientFinished) {
        Closes.By by = session.closedBy();
        Closes.Reason reason = session.closeReason();
        ConnectionHandler connection = session.connection;
        if (by == null && connection != null && connection.closedBy() != null) {
            by = connection.closedBy();
            reason = connection.closeReason();
        }
        if (by == null) {
            by = clientFinished ? Closes.By.CLIENT : Closes.By.TRANSPORT;
            reason = clientFinished ? Closes.Reason.NORMAL : Closes.Reason.RESET;
        }
        context.metrics.closes.stream(by, reason);
        if (by == Closes.By.CLIENT && reason == Closes.Reason.NORMAL) {
            LOG.debug("stream {} ended by the client", session.channel);
        } else if (reason.expected()) {
            LOG.info("stream {} closed by {} ({})", session.channel, by.label(), reason.label());
        } else {
            LOG.warn("stream {} closed by {} ({})", session.channel, by.label(), reason.label());
        }
    }

    /** Runs {@code listener} when the client's side of this stream ends (now, if it already has). */
    void whenInputEnds(Runnable listener) {
        if (inputEnded) {
            listener.run();
        } else {
            inputEndListener = listener;
        }
    }

    private void inputEnded() {
        if (inputEnded) {
            return;
        }
        inputEnded = true;
        Runnable r = inputEndListener;
        inputEndListener = null;
        if (r != null) {
            r.run();
        }
    }

    /**
     * A handler to place just before {@code decoder}: when the client's side ends, the decoder releases the
     * bytes of an incomplete frame before the end-of-input event gets past it, so their count is recorded
     * here first.
     */
    ChannelHandler endOfInputProbe(FrameDecoder decoder) {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                if (evt instanceof ChannelInputShutdownEvent) {
                    pendingAtInputEnd = decoder.pendingBytes();
                }
                ctx.fireUserEventTriggered(evt);
            }
        };
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        // End of the client's side of the stream: a truncated frame left behind is an error.
        if (evt instanceof ChannelInputShutdownReadComplete || evt instanceof ChannelInputShutdownEvent) {
            if (pendingAtInputEnd > 0 && session.serving()) {
                session.fail(ErrorCode.BAD_REQUEST, "stream ended inside a frame (" + pendingAtInputEnd
                        + " bytes of an incomplete frame)");
            }
            inputEnded();
            finishIfDone();
        }
        ctx.fireUserEventTriggered(evt);
    }

    /**
     * Once the client has finished its side, finishes ours as soon as nothing more is owed: frames held back
     * by ingress backpressure are processed and every acknowledgement is written (as upstream, whose control
     * loop ends the stream when the client's side ends). A stream handed over to a subscription or watch is
     * left to its new owner.
     */
    private void finishIfDone() {
        if (!inputEnded || !session.serving() || dispatcher.publishes().waiting()) {
            return;
        }
        AckWriter acks = session.acks();
        if (acks == null) {
            session.close();
        } else {
            acks.finishWhenIdle(session::serving, () -> {
                if (session.serving()) {
                    session.close();
                }
            });
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.warn("stream {} failed: {}", ctx.channel(), cause.toString());
        session.closedBy(Closes.By.TRANSPORT, Closes.Reason.RESET);
        session.markClosed();
        ctx.close();
    }

    private void releaseBacklog() {
        ByteBuf b;
        while ((b = backlog.poll()) != null) {
            b.release();
        }
        if (dispatcher != null) {
            dispatcher.publishes().abandon();
        }
    }
}
