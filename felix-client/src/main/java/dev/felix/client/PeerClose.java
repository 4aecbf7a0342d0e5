package dev.felix.client;

import dev.felix.wire.CloseReasons;
import dev.felix.wire.ErrorCode;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicConnectionCloseEvent;
import io.netty.util.AttributeKey;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * Why the broker closed a connection: its QUIC application close reason, recorded on the connection
 * channel when the CONNECTION_CLOSE frame arrives (before its streams end), so that every publisher,
 * subscription and request failing because of it reports that reason rather than a bare
 * {@code connection_lost}. {@link #RECORDER} is sharable; it runs on the connection's event loop.
 */
final class PeerClose {
    private PeerClose() {
    }

    private static final AttributeKey<String> REASON = AttributeKey.valueOf("felix.peer-close-reason");
    private static final AttributeKey<Boolean> LOCAL = AttributeKey.valueOf("felix.closed-by-this-client");

    /** The application close reason {@code FelixClient.close()} sends (code 0): an orderly close by the client. */
    static final String CLIENT_CLOSED = "client closed";

    /** Marks {@code connection} as being closed by this client (so its streams' ends are not blamed on others). */
    static void closingHere(QuicChannel connection) {
        connection.attr(LOCAL).set(Boolean.TRUE);
    }

    static boolean closedHere(QuicChannel connection) {
        return connection != null && Boolean.TRUE.equals(connection.attr(LOCAL).get());
    }

    /**
     * Who ended a stream of {@code connection} that ended without an error, and why, as the error later requests
     * on it fail with: this client ({@code closedHere}: the stream, or the whole client), the broker (its
     * CONNECTION_CLOSE reason, or its end of the stream), or the transport (the connection was lost; after the
     * idle timeout, if that is what ended it).
     */
    static FelixClientException streamEnded(QuicChannel connection, String what, boolean closedHere) {
        if (closedHere) {
            return new FelixClientException(ErrorCode.CONNECTION_LOST, "the " + what + " was closed by this client");
        }
        if (closedHere(connection)) {
            return new FelixClientException(ErrorCode.CONNECTION_LOST, "the " + what
                    + " ended because this client was closed");
        }
        FelixClientException byBroker = cause(connection);
        if (byBroker != null) {
            return byBroker;
        }
        String broker = connection != null && connection.remoteSocketAddress() instanceof InetSocketAddress a
                ? a.getHostString() + ":" + a.getPort() : "the broker";
        if (connection != null && connection.isTimedOut()) {
            return new FelixClientException(ErrorCode.CONNECTION_LOST, "the " + what + " ended: the connection to "
                    + broker + " was lost (transport: no packet from the broker within the idle timeout)");
        }
        if (connection == null || !connection.isActive()) {
            return new FelixClientException(ErrorCode.CONNECTION_LOST, "the " + what + " ended: the connection to "
                    + broker + " was lost (transport)");
        }
        return new FelixClientException(ErrorCode.CONNECTION_LOST, "the broker at " + broker + " closed the " + what
                + " without giving an error");
    }

    /** Records the reason of the peer's application close on the connection channel. */
    static final ChannelHandler RECORDER = new Recorder();

    @ChannelHandler.Sharable
    private static final class Recorder extends ChannelInboundHandlerAdapter {
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof QuicConnectionCloseEvent close && close.isApplicationClose()) {
                ctx.channel().attr(REASON).set(new String(close.reason(), StandardCharsets.UTF_8));
            }
            ctx.fireUserEventTriggered(evt);
        }
    }

    /**
     * The error for a connection the broker closed with a reason, or null if it did not (yet).
     * {@code broker shutting down} maps to {@link ErrorCode#BROKER_SHUTTING_DOWN}.
     */
    static FelixClientException cause(QuicChannel connection) {
        if (connection == null) {
            return null;
        }
        String reason = connection.attr(REASON).get();
        if (reason == null) {
            return null;
        }
        String broker = connection.remoteSocketAddress() instanceof InetSocketAddress a
                ? "the broker at " + a.getHostString() + ":" + a.getPort() : "the broker";
        if (CloseReasons.SHUTTING_DOWN.equals(reason)) {
            return new FelixClientException(ErrorCode.BROKER_SHUTTING_DOWN, broker
                    + " is shutting down and closed the connection; reconnect once it is back");
        }
        return new FelixClientException(ErrorCode.CONNECTION_LOST, broker
                + " closed the connection" + (reason.isEmpty() ? "" : ": " + reason));
    }
}
