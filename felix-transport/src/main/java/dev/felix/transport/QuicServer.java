package dev.felix.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.codec.quic.EpollQuicUtils;
import io.netty.handler.codec.quic.QuicChannelOption;
import io.netty.handler.codec.quic.QuicServerCodecBuilder;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;

/**
 * A QUIC listener: one UDP socket, TLS 1.3 with ALPN {@value TransportConfig#ALPN}.
 *
 * <p><b>Threads and buffers.</b> {@code bind} and {@link #close} run on the caller's thread; handlers run on the
 * socket's event loop. It allocates no buffers of its own; streams' handlers own what they read.
 *
 * <p>{@code connectionHandler} is added to every accepted connection's pipeline and
 * {@code streamHandler} to every stream the peer opens; both must be {@code @Sharable} or
 * {@code ChannelInitializer}s. Handlers run on the socket's event loop.
 */
public final class QuicServer implements AutoCloseable {

    /** Datagrams that segmentation offload (GSO) may coalesce into one send on epoll. */
    static final int GSO_SEGMENTS = 10;
    /**
     * Flushes of the UDP socket merged into one before it is flushed anyway. Every QUIC connection flushes the
     * shared socket after each send; a fanout to a hundred connections made a hundred {@code sendmsg} calls. The
     * socket's flushes are now consolidated ({@link FlushConsolidationHandler}): during a read, until the read
     * completes (as Netty's QUIC codec already did for itself); otherwise until the event loop's next task, so
     * everything the current batch of tasks wrote leaves in one {@code sendmmsg}.
     */
    static final int FLUSHES_PER_SEND = 256;

    private final IoRuntime runtime;
    private final boolean ownsRuntime;
    private final Channel channel;

    private QuicServer(IoRuntime runtime, boolean ownsRuntime, Channel channel) {
        this.runtime = runtime;
        this.ownsRuntime = ownsRuntime;
        this.channel = channel;
    }

    /**
     * Binds a listener. With {@code runtime == null} the server creates and owns a one-thread runtime.
     *
     * @throws TransportException if the address cannot be bound
     */
    public static QuicServer bind(InetSocketAddress address, TransportConfig config, TlsMaterial tls,
            IoRuntime runtime, ChannelHandler connectionHandler, ChannelHandler streamHandler)
            throws TransportException {
        return bind(address, config, TransportConfig.ALPN, tls, null, runtime, connectionHandler, streamHandler);
    }

    /**
     * Binds a listener that requires every client to present a certificate {@code clients} accepts (mutual
     * TLS, e.g. between the nodes of a cluster), speaking {@code alpn}. A client without one, or with one
     * {@code clients} refuses, fails the handshake.
     */
    public static QuicServer bindMutual(InetSocketAddress address, TransportConfig config, String alpn,
            TlsMaterial tls, javax.net.ssl.TrustManager clients, IoRuntime runtime, ChannelHandler connectionHandler,
            ChannelHandler streamHandler) throws TransportException {
        return bind(address, config, alpn, tls, java.util.Objects.requireNonNull(clients, "clients"), runtime,
                connectionHandler, streamHandler);
    }

    private static QuicServer bind(InetSocketAddress address, TransportConfig config, String alpn, TlsMaterial tls,
            javax.net.ssl.TrustManager clients, IoRuntime runtime, ChannelHandler connectionHandler,
            ChannelHandler streamHandler) throws TransportException {
        boolean owns = runtime == null;
        IoRuntime rt = owns ? IoRuntime.create(Math.max(1, config.ioThreads()), "felix-quic-server") : runtime;
        try {
            QuicSslContextBuilder sslBuilder = QuicSslContextBuilder
                    .forServer(tls.privateKey(), null, tls.chain().toArray(X509Certificate[]::new))
                    .applicationProtocols(alpn);
            if (clients != null) {
                sslBuilder.trustManager(clients).clientAuth(io.netty.handler.ssl.ClientAuth.REQUIRE);
            }
            QuicSslContext ssl = sslBuilder.build();
            int udpPayload = config.udpPayloadFor(address.getAddress());
            QuicServerCodecBuilder builder = QuicCodecs.apply(new QuicServerCodecBuilder(), config, udpPayload)
                    .sslContext(ssl)
                    // No token handler: no address-validation retry, which would cost a round trip
                    // on every connect. Loopback and trusted networks do not need it.
                    .handler(connectionHandler)
                    .streamHandler(streamHandler);
            if (rt.epoll()) {
                builder.option(QuicChannelOption.SEGMENTED_DATAGRAM_PACKET_ALLOCATOR,
                        EpollQuicUtils.newSegmentedAllocator(GSO_SEGMENTS));
            }
            ChannelHandler codec = builder.build();
            Channel channel = rt.datagramBootstrap(udpPayload)
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new FlushConsolidationHandler(FLUSHES_PER_SEND, true), codec);
                        }
                    })
                    .bind(address)
                    .syncUninterruptibly()
                    .channel();
            return new QuicServer(rt, owns, channel);
        } catch (Exception e) { // bind failures arrive as (undeclared) IOExceptions from the native transport
            if (owns) {
                rt.close();
            }
            throw new TransportException("could not listen on " + address + ": " + e.getMessage(), e);
        }
    }

    /** The event loops this listener's connections run on. */
    public io.netty.channel.EventLoopGroup eventLoops() {
        return runtime.group();
    }

    /** The bound UDP address (with the real port when bound to port 0). */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    /**
     * Stops listening; connections are dropped. Callers close connections first for a graceful stop;
     * datagrams already queued (such as their CONNECTION_CLOSE frames) get {@link #CLOSE_GRACE_MILLIS}
     * to leave the socket before it closes.
     */
    @Override
    public void close() {
        channel.eventLoop().execute(channel::flush);
        long deadline = System.nanoTime() + CLOSE_GRACE_MILLIS * 1_000_000L;
        while (channel.isActive() && !channel.isWritable() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        // One more grace period for what the QUIC codec flushes on its last timers.
        channel.eventLoop().schedule(() -> channel.close(), CLOSE_GRACE_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
        channel.closeFuture().syncUninterruptibly();
        if (ownsRuntime) {
            runtime.close();
        }
    }

    /** How long a closing listener lets queued datagrams leave. */
    static final long CLOSE_GRACE_MILLIS = 100;
}
