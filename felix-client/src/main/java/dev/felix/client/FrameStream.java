package dev.felix.client;

import dev.felix.wire.ErrorCode;
import dev.felix.transport.FrameDecoder;
import dev.felix.transport.StreamEnds;
import dev.felix.wire.Capabilities;
import dev.felix.wire.FrameFlags;
import dev.felix.wire.Message;
import dev.felix.wire.WireException;
import dev.felix.wire.WirePayload;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import java.util.concurrent.CompletableFuture;

/**
 * A client-opened bidirectional stream speaking Felix frames: it sends {@code auth} (asking for every
 * capability this SDK knows), completes {@link #ready()} on {@code auth_ok}, then hands every decoded
 * frame to its {@link Listener}. Runs on the connection's event loop.
 */
final class FrameStream extends ChannelInboundHandlerAdapter {

    /** Receives what arrives after authentication; called on the event loop. */
    interface Listener {
        void onPayload(WirePayload payload);

        /** The stream ended; {@code cause} is null for a clean end. Called once. */
        void onClosed(FelixClientException cause);
    }

    private final ClientConfig config;
    private final Listener listener;
    private final CompletableFuture<FrameStream> ready = new CompletableFuture<>();
    private QuicStreamChannel channel;
    private int negotiated = FrameFlags.ORIGINAL_V1;
    private boolean authenticated;
    private boolean ended;
    /** This client finished or closed the stream itself. */
    private volatile boolean closedHere;

    private FrameStream(ClientConfig config, Listener listener) {
        this.config = config;
        this.listener = listener;
    }

    /** Opens a stream on {@code connection} and authenticates it. */
    static CompletableFuture<FrameStream> open(QuicChannel connection, ClientConfig config, Listener listener) {
        FrameStream stream = new FrameStream(config, listener);
        connection.createStream(QuicStreamType.BIDIRECTIONAL, new io.netty.channel.ChannelInitializer<QuicStreamChannel>() {
            @Override
            protected void initChannel(QuicStreamChannel ch) {
                ch.pipeline().addLast(ClientFrames.decoder(config.maxFrameBytes), stream);
            }
        }).addListener(f -> {
            if (!f.isSuccess()) {
                stream.ready.completeExceptionally(new FelixClientException(ErrorCode.CONNECTION_LOST,
                        "could not open a stream: " + f.cause().getMessage(), -1, f.cause()));
            }
        });
        return stream.ready;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = (QuicStreamChannel) ctx.channel();
        channel.writeAndFlush(ClientFrames.encode(new Message.Auth(config.tenant, config.token, Capabilities.ALL,
                Capabilities.EXT_ALL)));
        ctx.fireChannelActive();
    }

    /** Capabilities both sides support on this stream (both words, {@link Capabilities#combine}). */
    int negotiated() {
        return negotiated;
    }

    QuicStreamChannel channel() {
        return channel;
    }

    CompletableFuture<FrameStream> ready() {
        return ready;
    }

    ChannelFuture write(WirePayload payload) {
        return channel.writeAndFlush(ClientFrames.encode(payload));
    }

    /** Writes an encoded frame; ownership of {@code frame} passes to the channel. */
    ChannelFuture write(ByteBuf frame) {
        return channel.writeAndFlush(frame);
    }

    /** Finishes our side of the stream (FIN), after what was written; see {@link StreamEnds}. */
    void finish() {
        closedHere = true;
        StreamEnds.finish(channel);
    }

    void close() {
        closedHere = true;
        channel.close();
    }

    /**
     * The error for this stream having ended without one, naming who ended it ({@code what}: "cache stream",
     * …): this client, the broker, or the transport. See {@link PeerClose#streamEnded}.
     */
    FelixClientException endedWithoutError(String what) {
        return PeerClose.streamEnded(channel == null ? null : channel.parent(), what, closedHere);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof FrameDecoder.BadHeader bad) {
            end(new FelixClientException(ErrorCode.INTERNAL, "the broker sent a bad frame: " + bad.reason()));
            ctx.close();
            return;
        }
        ByteBuf frame = (ByteBuf) msg;
        WirePayload payload;
        try {
            payload = ClientFrames.decode(frame);
        } catch (WireException e) {
            end(new FelixClientException(ErrorCode.INTERNAL, "undecodable frame from the broker: " + e.getMessage()));
            ctx.close();
            return;
        } finally {
            frame.release();
        }
        if (!authenticated) {
            if (payload instanceof Message.AuthOk ok) {
                authenticated = true;
                negotiated = Capabilities.negotiate(Capabilities.ALL_WORDS, ok.capabilities());
                ready.complete(this);
            } else if (payload instanceof Message.Ok) {
                authenticated = true; // an upstream broker that predates capability negotiation
                ready.complete(this);
            } else if (payload instanceof Message.ErrorMessage error) {
                FelixClientException refused = ClientFrames.toException(error);
                if (refused.code() == ErrorCode.UNAUTHORIZED) {
                    refused = new FelixClientException(ErrorCode.UNAUTHORIZED, error.message() + " (tenant '"
                            + config.tenant + "', " + (config.token == null || config.token.isEmpty() ? "no token"
                            : "the token") + " set with ClientConfig.Builder.token)");
                }
                end(refused);
            } else {
                end(new FelixClientException(ErrorCode.INTERNAL, "unexpected reply to auth: " + payload));
            }
            return;
        }
        listener.onPayload(payload);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        end(null);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        end(new FelixClientException(ErrorCode.CONNECTION_LOST, "stream failed: " + cause.getMessage(), -1, cause));
        ctx.close();
    }

    private void end(FelixClientException cause) {
        if (ended) {
            return;
        }
        ended = true;
        if (cause == null && channel != null) {
            cause = PeerClose.cause(channel.parent()); // the whole connection was closed, with a reason
        }
        FelixClientException c = cause != null ? cause
                : new FelixClientException(ErrorCode.CONNECTION_LOST, "the stream ended before authentication");
        if (!ready.isDone()) {
            ready.completeExceptionally(c);
            return;
        }
        listener.onClosed(cause);
    }
}
