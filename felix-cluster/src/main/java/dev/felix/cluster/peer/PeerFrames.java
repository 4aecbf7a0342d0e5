package dev.felix.cluster.peer;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.quic.QuicStreamChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline of a peer stream: frames split by their length prefix (bounded by
 * {@link PeerCodec#MAX_FRAME_BYTES} before allocating), decoded, and handed to the {@link PeerStream.Listener}.
 * An invalid frame closes that stream and is logged; nothing else is affected.
 */
final class PeerFrames {

    private static final Logger LOG = LoggerFactory.getLogger(PeerFrames.class);

    private PeerFrames() {
    }

    /** Installs the frame decoder and the dispatcher on {@code channel}. */
    static void install(QuicStreamChannel channel, PeerStream stream, PeerStream.Listener listener) {
        channel.pipeline().addLast(
                new LengthFieldBasedFrameDecoder(PeerCodec.MAX_FRAME_BYTES + PeerCodec.LENGTH_BYTES, 0,
                        PeerCodec.LENGTH_BYTES, 0, PeerCodec.LENGTH_BYTES),
                new Dispatch(stream, listener));
    }

    private static final class Dispatch extends ChannelInboundHandlerAdapter {
        private final PeerStream stream;
        private final PeerStream.Listener listener;
        private boolean closed;
        private Throwable failure;

        Dispatch(PeerStream stream, PeerStream.Listener listener) {
            this.stream = stream;
            this.listener = listener;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf frame = (ByteBuf) msg;
            PeerMessage message;
            try {
                message = PeerCodec.decode(frame);
            } catch (PeerProtocolException e) {
                LOG.warn("peer {} sent an invalid frame ({}); closing that stream", stream.remoteNode(), e.getMessage());
                failure = e;
                ctx.close();
                return;
            } finally {
                frame.release();
            }
            listener.onMessage(stream, message);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof ChannelInputShutdownEvent && !closed) {
                listener.onInputEnded(stream);
            }
            ctx.fireUserEventTriggered(evt);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable()) {
                listener.onWritable(stream);
            }
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (failure == null) {
                failure = cause;
            }
            LOG.debug("peer stream {} failed: {}", stream, cause.toString());
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (!closed) {
                closed = true;
                listener.onClosed(stream, failure);
            }
            ctx.fireChannelInactive();
        }
    }
}
