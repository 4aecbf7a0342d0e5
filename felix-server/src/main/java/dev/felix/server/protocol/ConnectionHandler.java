package dev.felix.server.protocol;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.util.AttributeKey;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One accepted QUIC connection: counts it, remembers the peer, owns the subscriptions created on it
 * and ends them when the connection goes away.
 *
 * <p><b>Threads and buffers.</b> Its callbacks, {@code reserveSubscriptions}, {@code releaseReservation},
 * {@code added} and {@code removed} run on the connection's event loop (a QUIC connection's streams share it, so
 * the writers of its subscriptions call from there); {@code releaseReservationLater} and {@code close(reason)} may
 * be called from any thread and hop onto it. The close reason is a new unpooled buffer, owned by the QUIC codec
 * once passed to {@code close}.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {

    static final AttributeKey<ConnectionHandler> KEY = AttributeKey.valueOf("felix.connection");
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionHandler.class);

    private final ServerContext context;
    private final Set<LiveSubscription> subscriptions = new HashSet<>();
    private QuicChannel channel;
    private boolean loopbackPeer;
    private int reservedSubscriptions;

    ConnectionHandler(ServerContext context) {
        this.context = context;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        // Set before any stream of this connection can look it up.
        channel = (QuicChannel) ctx.channel();
        channel.attr(KEY).set(this);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        loopbackPeer = channel.remoteSocketAddress() instanceof InetSocketAddress a
                && a.getAddress() != null && a.getAddress().isLoopbackAddress();
        context.metrics.connectionsOpened.increment();
        if (context.draining()) {
            close(dev.felix.wire.CloseReasons.SHUTTING_DOWN);
            return;
        }
        context.connections.add(this);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (context.connections.remove(this)) {
            context.metrics.connectionsClosed.increment();
        }
        for (LiveSubscription w : List.copyOf(subscriptions)) {
            w.close();
        }
        subscriptions.clear();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }

    boolean loopbackPeer() {
        return loopbackPeer;
    }

    QuicChannel channel() {
        return channel;
    }

    /** Reserves room for {@code n} shard subscriptions; false if the per-connection limit would pass. */
    boolean reserveSubscriptions(int n) {
        if (subscriptions.size() + reservedSubscriptions + n > ServerContext.MAX_SUBSCRIPTIONS_PER_CONNECTION) {
            return false;
        }
        reservedSubscriptions += n;
        return true;
    }

    void releaseReservation(int n) {
        reservedSubscriptions -= n;
    }

    /** {@link #releaseReservation} from any thread: runs on the connection's event loop. */
    void releaseReservationLater(int n) {
        if (channel.eventLoop().inEventLoop()) {
            releaseReservation(n);
        } else {
            channel.eventLoop().execute(() -> releaseReservation(n));
        }
    }

    void added(LiveSubscription writer) {
        subscriptions.add(writer);
    }

    void removed(LiveSubscription writer) {
        subscriptions.remove(writer);
    }

    /** Closes the connection with application error code 0 and {@code reason}; completes when closed. */
    io.netty.util.concurrent.Future<?> close(String reason) {
        QuicChannel c = channel;
        if (c == null) {
            return io.netty.util.concurrent.ImmediateEventExecutor.INSTANCE.newSucceededFuture(null);
        }
        if (c.eventLoop().inEventLoop()) {
            c.close(true, 0, Unpooled.copiedBuffer(reason, StandardCharsets.UTF_8));
        } else {
            c.eventLoop().execute(() -> c.close(true, 0, Unpooled.copiedBuffer(reason, StandardCharsets.UTF_8)));
        }
        return c.closeFuture();
    }
}
