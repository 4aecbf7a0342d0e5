package dev.felix.server.protocol;

import dev.felix.transport.FrameDecoder;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;

/** The pipelines of accepted connections and of the streams clients open. */
public final class StreamInitializers {
    private StreamInitializers() {
    }

    /** Adds a {@link ConnectionHandler} to each accepted connection. */
    public static ChannelHandler connections(ServerContext context) {
        return new ChannelInitializer<QuicChannel>() {
            @Override
            protected void initChannel(QuicChannel ch) {
                ch.pipeline().addLast(new ConnectionHandler(context));
            }
        };
    }

    /** Frames every client-opened stream and serves it with a {@link ClientStreamHandler}. */
    public static ChannelHandler streams(ServerContext context) {
        return new ChannelInitializer<QuicStreamChannel>() {
            @Override
            protected void initChannel(QuicStreamChannel ch) {
                FrameDecoder decoder = Frames.decoder(context.config.maxFrameBytes());
                ClientStreamHandler handler = new ClientStreamHandler(context);
                ch.pipeline().addLast(handler.endOfInputProbe(decoder), decoder, handler);
            }
        };
    }
}
