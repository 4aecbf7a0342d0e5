package dev.felix.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.codec.quic.EpollQuicUtils;
import io.netty.handler.codec.quic.QuicChannelOption;
import io.netty.handler.codec.quic.QuicServerCodecBuilder;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.channel.epoll.EpollChannelOption;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * A QUIC listener: TLS 1.3 with ALPN {@value TransportConfig#ALPN}, on one UDP socket per event loop
 * ({@link TransportConfig#ioThreads()}, epoll only). Several sockets share the port with {@code SO_REUSEPORT}; the
 * kernel spreads clients over them by address, so every core can serve connections, and each connection stays on
 * one socket, its codec and its event loop for its life. (A client whose address changes mid-connection, e.g.
 * behind a NAT that rebinds, may then reach a socket that does not know it and must reconnect: one socket, the
 * default, has no such case.)
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
    /** One UDP socket per event loop, all on the same port (see {@link #bind}). */
    private final List<Channel> channels;
    /** The kernel's counters of those sockets (empty off Linux epoll). */
    private final java.util.Optional<UdpSocketCounters> counters;

    private QuicServer(IoRuntime runtime, boolean ownsRuntime, List<Channel> channels) {
        this.runtime = runtime;
        this.ownsRuntime = ownsRuntime;
        this.channels = List.copyOf(channels);
        this.counters = UdpSocketCounters.of(channels);
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
            int sockets = rt.epoll() ? Math.max(1, config.ioThreads()) : 1;
            List<Channel> channels = new ArrayList<>(sockets);
            InetSocketAddress bindTo = address;
            try {
                for (int i = 0; i < sockets; i++) {
                    ChannelHandler codec = builder.build(); // one per socket: its connections are its own
                    Bootstrap socket = rt.datagramBootstrap(udpPayload).handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new FlushConsolidationHandler(FLUSHES_PER_SEND, true), codec);
                        }
                    });
                    if (sockets > 1) {
                        socket.option(EpollChannelOption.SO_REUSEPORT, true);
                    }
                    Channel channel = socket.bind(bindTo).syncUninterruptibly().channel(); // on the next event loop
                    channels.add(channel);
                    bindTo = (InetSocketAddress) channel.localAddress(); // the others share the port it got
                }
            } catch (RuntimeException e) {
                channels.forEach(Channel::close);
                throw e;
            }
            return new QuicServer(rt, owns, channels);
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
        return (InetSocketAddress) channels.get(0).localAddress();
    }

    /** The UDP sockets listening on {@link #localAddress()}: one per event loop. */
    public int sockets() {
        return channels.size();
    }

    /**
     * What the kernel counts for this listener's sockets, summed: datagrams dropped because a socket's receive
     * buffer was full, and bytes queued now. Nothing where the kernel's counters cannot be read (see {@link
     * UdpSocketCounters}) or once the listener is closed. Scans {@code /proc}: for metrics scrapes, not the data path.
     */
    public java.util.Optional<UdpSocketCounters.Reading> udpCounters() {
        return counters.flatMap(UdpSocketCounters::read);
    }

    /**
     * Stops listening; connections are dropped. Callers close connections first for a graceful stop;
     * datagrams already queued (such as their CONNECTION_CLOSE frames) get {@link #CLOSE_GRACE_MILLIS}
     * to leave the socket before it closes.
     */
    @Override
    public void close() {
        channels.forEach(c -> c.eventLoop().execute(c::flush));
        long deadline = System.nanoTime() + CLOSE_GRACE_MILLIS * 1_000_000L;
        for (Channel c : channels) {
            while (c.isActive() && !c.isWritable() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
        }
        // One more grace period for what the QUIC codecs flush on their last timers.
        for (Channel c : channels) {
            c.eventLoop().schedule(() -> c.close(), CLOSE_GRACE_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        channels.forEach(c -> c.closeFuture().syncUninterruptibly());
        if (ownsRuntime) {
            runtime.close();
        }
    }

    /** How long a closing listener lets queued datagrams leave. */
    static final long CLOSE_GRACE_MILLIS = 100;
}
