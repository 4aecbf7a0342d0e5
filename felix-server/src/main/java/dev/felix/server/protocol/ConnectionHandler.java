package dev.felix.server.protocol;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import dev.felix.server.metrics.Closes;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicConnectionCloseEvent;
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
 * <h2>Who closed it</h2>
 * Every close is attributed once ({@link Closes}): the client's CONNECTION_CLOSE (the SDK sends an application
 * close, code 0, when it is closed), the broker's own close (shutdown), or the transport (the idle timeout fired,
 * or the connection failed). An error the QUIC codec reports on the connection is not a close (see
 * {@link #exceptionCaught}). Expected closes are logged at INFO, the others at WARN, and counted in
 * {@code felix_connection_closes_total{by,reason}}.
 *
 * <p>The broker forgets a connection — gauges, subscriptions — as soon as the client's close arrives, and closes it
 * then (once that read is handled) instead of letting it drain for three probe timeouts: clients that close cleanly
 * leave the gauges at once, and no writer goes on writing to a connection its client has left.
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
    /** Who closed this connection and why, once known. */
    private Closes.By closedBy;
    private Closes.Reason closeReason;
    private boolean forgotten;
    /** Transport errors reported on this connection (see {@link #exceptionCaught}); event loop only. */
    private long errorsReported;

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
            forget(); // never counted among the open connections
            return;
        }
        context.connections.add(this);
        ctx.fireChannelActive();
    }

    /**
     * A QUIC DATAGRAM frame (a {@code ByteBuf}) is the SDK's keep-alive (see {@code FelixClient}): its content
     * means nothing, and QUIC has already acknowledged it, which is all a keep-alive needs; released here. New
     * streams (stream channels) pass on to the codec's stream acceptor.
     */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof io.netty.buffer.ByteBuf datagram) {
            datagram.release();
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof QuicConnectionCloseEvent close) {
            // The client's CONNECTION_CLOSE: the connection is over for us now, whatever QUIC still drains.
            Closes.Reason reason;
            if (close.error() == 0) {
                reason = Closes.Reason.NORMAL;
            } else if (!close.isApplicationClose() && close.isTlsError()) {
                reason = Closes.Reason.AUTH;
            } else {
                reason = Closes.Reason.PROTOCOL_ERROR;
            }
            String text = reasonText(close);
            closedBy(Closes.By.CLIENT, reason, (close.isApplicationClose() ? "application" : "transport")
                    + " code " + close.error() + (text.isEmpty() ? "" : ", \"" + text + "\""));
            forget();
            // Closed on our side too, once what this read brought is handled: QUIC would keep the connection draining
            // for three probe timeouts, while writers (a watch's snapshot, replies) went on writing to it, and a
            // write that hits the end of that period closes the connection from inside itself and strands its
            // buffer in Netty 4.2.18 (see StreamWrites). Closing now fails every queued write and ends the writers.
            QuicChannel ch = channel;
            ch.eventLoop().execute(ch::close);
        }
        ctx.fireUserEventTriggered(evt);
    }

    /**
     * The close's reason phrase, empty when it has none. Netty's event holds a null array for an empty phrase (what
     * the SDK and most clients send) and {@code reason()} then throws; that used to escape this handler as a
     * "transport error", and the client's close went uncounted.
     */
    private static String reasonText(QuicConnectionCloseEvent close) {
        byte[] reason;
        try {
            reason = close.reason();
        } catch (NullPointerException none) {
            return "";
        }
        return reason == null ? "" : new String(reason, StandardCharsets.UTF_8);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (closedBy == null) {
            boolean idle = channel.isTimedOut();
            closedBy(Closes.By.TRANSPORT, idle ? Closes.Reason.IDLE_TIMEOUT : Closes.Reason.RESET,
                    idle ? "no packet from the client within the idle timeout" : "the connection ended without a close");
        }
        forget();
        ctx.fireChannelInactive();
    }

    /**
     * An error the QUIC codec reports on this connection. It is not a close: Netty's codec fires here what quiche
     * returns while sending or receiving for the connection (a send that found no room, a datagram it could not
     * take) and closes the connection itself only when the error is fatal (a TLS or crypto failure), which
     * {@link #channelInactive} then attributes. This handler used to close the connection on any such event, so a
     * transient error under load took every stream of the connection with it: a writer's cache stream beside 100
     * watching mirrors ended with {@code connection_lost} (issue 12 item 6). Counted in
     * {@code felix_connection_errors_total} and logged; the connection carries on.
     */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        context.metrics.connectionErrors.increment();
        Object peer = channel == null ? "?" : channel.remoteSocketAddress();
        // The first one at WARN; a loaded connection may report many, and the counter has them all.
        if (errorsReported++ == 0) {
            LOG.warn("connection from {}: transport error, connection kept open (further ones at DEBUG): {}", peer,
                    cause.toString());
        } else {
            LOG.debug("connection from {}: transport error, connection kept open: {}", peer, cause.toString());
        }
    }

    /** Records who closed the connection and why (the first account wins), counts it and logs it. */
    private void closedBy(Closes.By by, Closes.Reason reason, String detail) {
        if (closedBy != null) {
            return;
        }
        closedBy = by;
        closeReason = reason;
        context.metrics.closes.connection(by, reason);
        Object peer = channel == null ? "?" : channel.remoteSocketAddress();
        if (reason.expected()) {
            LOG.info("connection from {} closed by {} ({}): {}", peer, by.label(), reason.label(), detail);
        } else {
            LOG.warn("connection from {} closed by {} ({}): {}", peer, by.label(), reason.label(), detail);
        }
    }

    /** Who closed this connection, or null while it is open. */
    Closes.By closedBy() {
        return closedBy;
    }

    /** Why this connection was closed, or null while it is open. */
    Closes.Reason closeReason() {
        return closeReason;
    }

    /** Drops the connection's state: gauges and subscriptions. Idempotent. */
    private void forget() {
        if (forgotten) {
            return;
        }
        forgotten = true;
        if (context.connections.remove(this)) {
            context.metrics.connectionsClosed.increment();
        }
        for (LiveSubscription w : List.copyOf(subscriptions)) {
            w.close();
        }
        subscriptions.clear();
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
        if (forgotten) {
            writer.close(); // set up while the client's close was on its way
            return;
        }
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
        Closes.Reason why = dev.felix.wire.CloseReasons.SHUTTING_DOWN.equals(reason) ? Closes.Reason.SHUTTING_DOWN
                : Closes.Reason.NORMAL;
        Runnable close = () -> {
            closedBy(Closes.By.BROKER, why, reason);
            c.close(true, 0, Unpooled.copiedBuffer(reason, StandardCharsets.UTF_8));
        };
        if (c.eventLoop().inEventLoop()) {
            close.run();
        } else {
            c.eventLoop().execute(close);
        }
        return c.closeFuture();
    }
}
