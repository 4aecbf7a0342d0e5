package dev.felix.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.EpollQuicUtils;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicChannelBootstrap;
import io.netty.handler.codec.quic.QuicChannelOption;
import io.netty.handler.codec.quic.QuicClientCodecBuilder;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;

/**
 * A QUIC client socket for connections to one server: TLS 1.3, ALPN {@value TransportConfig#ALPN},
 * the server certificate checked against a {@link ClientTrust} and the server name.
 *
 * <p><b>Threads and buffers.</b> Thread-safe; {@link #connect} may be called from any thread, any number of
 * times, for several connections over the same UDP socket; their handlers run on the socket's event loop. It
 * allocates no buffers of its own.
 */
public final class QuicClient implements AutoCloseable {

    private final IoRuntime runtime;
    private final boolean ownsRuntime;
    private final Channel datagram;
    private final InetSocketAddress server;
    /** The kernel's counters of the socket (empty off Linux epoll). */
    private final java.util.Optional<UdpSocketCounters> counters;

    private QuicClient(IoRuntime runtime, boolean ownsRuntime, Channel datagram, InetSocketAddress server) {
        this.runtime = runtime;
        this.ownsRuntime = ownsRuntime;
        this.datagram = datagram;
        this.server = server;
        this.counters = UdpSocketCounters.of(datagram);
    }

    /**
     * Opens a UDP socket for connections to {@code server}, verifying its certificate for
     * {@code serverName}. With {@code runtime == null} the client owns a one-thread runtime.
     */
    public static QuicClient create(InetSocketAddress server, String serverName, TransportConfig config,
            ClientTrust trust, IoRuntime runtime) throws TransportException, TlsException {
        return create(server, serverName, config, trust.trustManager(), null, TransportConfig.ALPN, runtime);
    }

    /**
     * A client that presents {@code identity} to a server requiring client certificates (mutual TLS between
     * cluster nodes), speaking {@code alpn}, and accepts the server's certificate if {@code trust} does. No
     * host name is checked: the caller checks whom it reached (e.g. the node id in the peer certificate).
     */
    public static QuicClient createMutual(InetSocketAddress server, TransportConfig config, String alpn,
            javax.net.ssl.TrustManager trust, TlsMaterial identity, IoRuntime runtime) throws TransportException {
        return create(server, null, config, trust, java.util.Objects.requireNonNull(identity, "identity"), alpn, runtime);
    }

    private static QuicClient create(InetSocketAddress server, String serverName, TransportConfig config,
            javax.net.ssl.TrustManager trust, TlsMaterial identity, String alpn, IoRuntime runtime)
            throws TransportException {
        boolean owns = runtime == null;
        IoRuntime rt = owns ? IoRuntime.create(Math.max(1, config.ioThreads()), "felix-quic-client") : runtime;
        try {
            QuicSslContextBuilder sslBuilder = QuicSslContextBuilder.forClient()
                    .trustManager(trust)
                    .applicationProtocols(alpn);
            if (identity != null) {
                sslBuilder.keyManager(identity.privateKey(), null,
                        identity.chain().toArray(java.security.cert.X509Certificate[]::new));
            }
            QuicSslContext ssl = sslBuilder.build();
            int udpPayload = config.udpPayloadFor(server.getAddress());
            ChannelHandler codec = QuicCodecs.apply(new QuicClientCodecBuilder(), config, udpPayload)
                    // BoringSSL verifies the certificate against the peer host given to the engine.
                    .sslEngineProvider(q -> serverName == null ? ssl.newEngine(q.alloc())
                            : ssl.newEngine(q.alloc(), serverName, server.getPort()))
                    .build();
            Channel datagram = rt.datagramBootstrap(udpPayload)
                    .handler(codec)
                    .bind(0)
                    .syncUninterruptibly()
                    .channel();
            return new QuicClient(rt, owns, datagram, server);
        } catch (RuntimeException e) {
            if (owns) {
                rt.close();
            }
            throw new TransportException("could not create a QUIC client socket: " + e.getMessage(), e);
        }
    }

    /**
     * Starts a connection. {@code connectionHandler} joins the connection's pipeline and
     * {@code streamHandler} the pipeline of every stream the server opens (null: such streams are
     * refused by closing them).
     */
    public Future<QuicChannel> connect(ChannelHandler connectionHandler, ChannelHandler streamHandler) {
        QuicChannelBootstrap bootstrap = QuicChannel.newBootstrap(datagram)
                .handler(connectionHandler != null ? connectionHandler : new ChannelInboundHandlerAdapter())
                .streamHandler(streamHandler != null ? streamHandler : new RefuseStreams())
                .remoteAddress(server);
        if (runtime.epoll()) {
            bootstrap.option(QuicChannelOption.SEGMENTED_DATAGRAM_PACKET_ALLOCATOR,
                    EpollQuicUtils.newSegmentedAllocator(QuicServer.GSO_SEGMENTS));
        }
        return bootstrap.connect();
    }

    public InetSocketAddress server() {
        return server;
    }

    /** Whether the UDP socket is still open (a closed one serves no connection, old or new). */
    public boolean isOpen() {
        return datagram.isActive();
    }

    /**
     * What the kernel counts for this socket: datagrams dropped because its receive buffer was full, and bytes
     * queued now. Nothing where the kernel's counters cannot be read (see {@link UdpSocketCounters}) or once the
     * socket is closed. Scans {@code /proc}: for metrics, not the data path.
     */
    public java.util.Optional<UdpSocketCounters.Reading> udpCounters() {
        return counters.flatMap(UdpSocketCounters::read);
    }

    /** This socket's counters, to read together with others' ({@link UdpSocketCounters#merged}); empty as above. */
    public java.util.Optional<UdpSocketCounters> counters() {
        return counters;
    }

    /** The runtime whose event loop serves this client's connections. */
    public IoRuntime runtime() {
        return runtime;
    }

    /**
     * Closes the socket. Datagrams still queued on it — the CONNECTION_CLOSE of a connection just closed — get up
     * to {@link #CLOSE_GRACE_MILLIS} to leave first: closing the socket discards them, and a lost close leaves
     * the server holding the connection until its idle timeout.
     */
    @Override
    public void close() {
        long deadline = System.nanoTime() + CLOSE_GRACE_MILLIS * 1_000_000L;
        while (datagram.isActive() && System.nanoTime() < deadline) {
            Future<Boolean> drained = datagram.eventLoop().submit(() -> {
                datagram.flush();
                io.netty.channel.ChannelOutboundBuffer out = datagram.unsafe().outboundBuffer();
                return out == null || out.isEmpty();
            });
            if (drained.awaitUninterruptibly(CLOSE_GRACE_MILLIS) && drained.isSuccess()
                    && Boolean.TRUE.equals(drained.getNow())) {
                break;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // closing path only
        }
        datagram.close().syncUninterruptibly();
        if (ownsRuntime) {
            runtime.close();
        }
    }

    /** How long a closing client lets queued datagrams leave. */
    static final long CLOSE_GRACE_MILLIS = 100;

    @ChannelHandler.Sharable
    private static final class RefuseStreams extends ChannelInboundHandlerAdapter {
        @Override
        public void channelActive(io.netty.channel.ChannelHandlerContext ctx) {
            ctx.close();
        }
    }
}
