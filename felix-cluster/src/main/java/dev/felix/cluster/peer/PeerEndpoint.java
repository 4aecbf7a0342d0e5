package dev.felix.cluster.peer;

import dev.felix.transport.IoRuntime;
import dev.felix.transport.QuicClient;
import dev.felix.transport.QuicServer;
import dev.felix.transport.TlsMaterial;
import dev.felix.transport.TransportConfig;
import dev.felix.transport.TransportException;
import dev.felix.transport.UdpSocketCounters;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import java.net.InetSocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.X509TrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's end of the replication network: a QUIC listener that requires every peer to present a
 * certificate of the cluster CA (mutual TLS, ALPN {@value #ALPN}), and outgoing connections to other nodes,
 * one per node, reused by every stream opened to it. A peer is known by the node id its certificate names
 * (the subject's common name); an outgoing connection that reaches a node with another name is closed.
 *
 * <p><b>Threads.</b> Thread-safe. Listeners run on the endpoint's event loops.
 */
public final class PeerEndpoint implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PeerEndpoint.class);

    /** The application protocol of the replication endpoint. */
    public static final String ALPN = "felix-peer/1";

    /** Decides who listens to a stream another node opened. Event loop; must not block. */
    @FunctionalInterface
    public interface Acceptor {
        PeerStream.Listener accept(PeerStream stream);
    }

    private final IoRuntime runtime;
    private final QuicServer server;
    private final TransportConfig config;
    private final TlsMaterial identity;
    private final X509TrustManager trust;
    private final Map<String, Outgoing> outgoing = new ConcurrentHashMap<>();
    /** Whether the kernel's counters of this endpoint's sockets can be read here (Linux, epoll). */
    private final boolean countersReadable;
    /** Drops counted by outgoing sockets already closed, so the outgoing total never goes down. */
    private final AtomicLong closedOutgoingDrops = new AtomicLong();
    /** Sockets of outgoing connections created and not yet closed. */
    private final AtomicInteger outgoingSockets = new AtomicInteger();
    /** The outgoing drops last reported; guarded by {@code this}. */
    private long reportedOutgoingDrops;
    private volatile boolean closed;

    private PeerEndpoint(IoRuntime runtime, QuicServer server, TransportConfig config, TlsMaterial identity,
            X509TrustManager trust) {
        this.runtime = runtime;
        this.server = server;
        this.countersReadable = server.udpCounters().isPresent(); // the outgoing sockets are of the same kind
        this.config = config;
        this.identity = identity;
        this.trust = trust;
    }

    /**
     * Listens on {@code bind} (port 0: any free port) with this node's {@code identity}, accepting peers whose
     * certificate {@code trust} accepts.
     *
     * @throws TransportException if the address cannot be bound
     */
    public static PeerEndpoint start(InetSocketAddress bind, TlsMaterial identity, X509TrustManager trust,
            TransportConfig config, Acceptor acceptor) throws TransportException {
        IoRuntime runtime = IoRuntime.create(Math.max(1, config.ioThreads()), "felix-peer");
        trust = new ChainOnly(trust);
        try {
            QuicServer server = QuicServer.bindMutual(bind, config, ALPN, identity, trust, runtime,
                    new Connections(), new Accepting(acceptor));
            return new PeerEndpoint(runtime, server, config, identity, trust);
        } catch (TransportException | RuntimeException e) {
            runtime.close();
            throw e;
        }
    }

    /**
     * What the kernel counts for the listening sockets (drops for lack of receive buffer, bytes queued); nothing
     * where it cannot be read. See {@link QuicServer#udpCounters()}.
     */
    public Optional<UdpSocketCounters.Reading> udpCounters() {
        return server.udpCounters();
    }

    /**
     * What the kernel counts for the sockets of this node's outgoing connections (one per other node it replicates
     * from or talks to): drops since the endpoint started, those of sockets since closed included, and bytes queued
     * now. Nothing where the kernel's counters cannot be read (off Linux epoll). One scan of {@code /proc} for all of
     * them.
     */
    public Optional<UdpSocketCounters.Reading> outgoingUdpCounters() {
        if (!countersReadable) {
            return Optional.empty();
        }
        // Read first: a socket closing from here on adds its drops here only after it left the live set below, so
        // no drop is counted twice (one missed for a moment is made up by the max).
        long closedDrops = closedOutgoingDrops.get();
        List<UdpSocketCounters> live = new ArrayList<>();
        for (Outgoing o : outgoing.values()) {
            QuicClient c = o.client.get();
            if (c != null) {
                c.counters().ifPresent(live::add);
            }
        }
        UdpSocketCounters.Reading now = UdpSocketCounters.merged(live).flatMap(UdpSocketCounters::read)
                .orElse(new UdpSocketCounters.Reading(0, 0));
        long drops = closedDrops + now.drops();
        synchronized (this) {
            // A socket closing between the two reads above is briefly in neither: never report less than before.
            reportedOutgoingDrops = Math.max(reportedOutgoingDrops, drops);
            return Optional.of(new UdpSocketCounters.Reading(reportedOutgoingDrops, now.queuedBytes()));
        }
    }

    /** Sockets of outgoing connections open now (one per connected node; a closed connection's socket goes too). */
    int outgoingSockets() {
        return outgoingSockets.get();
    }

    /** Where this endpoint listens (with the real port when bound to port 0). */
    public InetSocketAddress localAddress() {
        return server.localAddress();
    }

    /**
     * Opens a stream to node {@code nodeId} at {@code address}, connecting first if this endpoint has no
     * connection to it. Fails if the node cannot be reached, refuses this node's certificate, or proves to be
     * another node.
     */
    public CompletableFuture<PeerStream> open(String nodeId, InetSocketAddress address, PeerStream.Listener listener) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("the peer endpoint is closed"));
        }
        // The map only chooses which Outgoing serves the node; connecting happens after compute returns.
        // Blocking inside compute would hold the map's bin lock while the bind waits for an event loop, and
        // an event loop forgetting a closed connection (Closing below) waits for that same lock: a deadlock.
        Outgoing[] created = new Outgoing[1];
        Outgoing[] replaced = new Outgoing[1];
        Outgoing out = outgoing.compute(nodeId, (id, existing) -> {
            if (existing != null && existing.usable(address)) {
                return existing;
            }
            replaced[0] = existing;
            created[0] = new Outgoing(id, address);
            return created[0];
        });
        if (out == created[0]) {
            if (replaced[0] != null) {
                replaced[0].close();
            }
            out.connect();
        }
        return out.connected.thenCompose(channel -> {
            CompletableFuture<PeerStream> result = new CompletableFuture<>();
            PeerStream[] holder = new PeerStream[1];
            channel.createStream(QuicStreamType.BIDIRECTIONAL, new ChannelInitializer<QuicStreamChannel>() {
                @Override
                protected void initChannel(QuicStreamChannel ch) {
                    holder[0] = new PeerStream(ch, nodeId);
                    PeerFrames.install(ch, holder[0], listener);
                }
            }).addListener(f -> {
                if (f.isSuccess()) {
                    result.complete(holder[0]);
                } else {
                    result.completeExceptionally(f.cause());
                }
            });
            return result;
        });
    }

    @Override
    public void close() {
        closed = true;
        for (Outgoing o : outgoing.values()) {
            o.close();
        }
        outgoing.clear();
        server.close();
        runtime.close();
    }

    /** The node id a certificate names: its subject's common name. */
    static String nodeIdOf(X509Certificate certificate) {
        try {
            for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    return rdn.getValue().toString();
                }
            }
        } catch (javax.naming.InvalidNameException e) {
            // fall through
        }
        return certificate.getSubjectX500Principal().getName();
    }

    /** The node id the other side of {@code connection} proved, or null before its handshake finished. */
    static String peerNode(QuicChannel connection) {
        SSLEngine engine = connection.sslEngine();
        if (engine == null) {
            return null;
        }
        try {
            Certificate[] chain = engine.getSession().getPeerCertificates();
            return chain.length == 0 ? null : nodeIdOf((X509Certificate) chain[0]);
        } catch (SSLPeerUnverifiedException e) {
            return null;
        }
    }

    /**
     * Checks a peer's certificate chain only. Peers are reached by address and known by the node id their
     * certificate names, which this endpoint checks itself; a JDK trust manager given the TLS engine would
     * also demand a host name, which a peer connection does not carry.
     */
    private static final class ChainOnly extends javax.net.ssl.X509ExtendedTrustManager {
        private final X509TrustManager delegate;

        ChainOnly(X509TrustManager delegate) {
            this.delegate = delegate;
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws java.security.cert.CertificateException {
            delegate.checkClientTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws java.security.cert.CertificateException {
            delegate.checkServerTrusted(chain, authType);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, java.net.Socket socket)
                throws java.security.cert.CertificateException {
            delegate.checkClientTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, java.net.Socket socket)
                throws java.security.cert.CertificateException {
            delegate.checkServerTrusted(chain, authType);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws java.security.cert.CertificateException {
            delegate.checkClientTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws java.security.cert.CertificateException {
            delegate.checkServerTrusted(chain, authType);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return delegate.getAcceptedIssuers();
        }
    }

    /** Accepted connections need no handler of their own; their streams get {@link Accepting}. */
    @ChannelHandler.Sharable
    private static final class Connections extends ChannelInboundHandlerAdapter {
    }

    /** Streams a peer opens: frames in, listener chosen by the acceptor. */
    @ChannelHandler.Sharable
    private static final class Accepting extends ChannelInitializer<QuicStreamChannel> {
        private final Acceptor acceptor;

        Accepting(Acceptor acceptor) {
            this.acceptor = acceptor;
        }

        @Override
        protected void initChannel(QuicStreamChannel ch) {
            String node = peerNode(ch.parent());
            if (node == null) {
                ch.close();
                return;
            }
            PeerStream stream = new PeerStream(ch, node);
            PeerStream.Listener listener = acceptor.accept(stream);
            if (listener == null) {
                ch.close();
                return;
            }
            PeerFrames.install(ch, stream, listener);
        }
    }

    /** The connection to one node, made on first use and replaced when it ends or the node moved. */
    private final class Outgoing {
        final String nodeId;
        final InetSocketAddress address;
        final CompletableFuture<QuicChannel> connected = new CompletableFuture<>();
        /** The socket's client; null before connecting and once closed. */
        final AtomicReference<QuicClient> client = new AtomicReference<>();

        Outgoing(String nodeId, InetSocketAddress address) {
            this.nodeId = nodeId;
            this.address = address;
        }

        boolean usable(InetSocketAddress to) {
            if (!address.equals(to)) {
                return false;
            }
            if (!connected.isDone()) {
                return true;
            }
            QuicChannel ch = channel();
            return ch != null && ch.isActive();
        }

        /** Starts connecting; called once, by the caller that put this Outgoing in the map. */
        void connect() {
            if (closed) {
                connected.completeExceptionally(new IllegalStateException("the peer endpoint is closed"));
                return;
            }
            QuicClient created;
            try {
                created = QuicClient.createMutual(address, config, ALPN, trust, identity, runtime);
            } catch (TransportException e) {
                connected.completeExceptionally(e);
                return;
            }
            client.set(created);
            outgoingSockets.incrementAndGet();
            if (closed) {
                close(); // the endpoint closed while this was being created: its close did not see the socket
                connected.completeExceptionally(new IllegalStateException("the peer endpoint is closed"));
                return;
            }
            created.connect(new Closing(), null).addListener(f -> {
                if (!f.isSuccess()) {
                    connected.completeExceptionally(f.cause());
                    close();
                    return;
                }
                QuicChannel ch = (QuicChannel) f.getNow();
                String proved = peerNode(ch);
                if (!nodeId.equals(proved)) {
                    LOG.warn("the node at {} presented the certificate of '{}', not of '{}'; closing", address, proved,
                            nodeId);
                    ch.close();
                    connected.completeExceptionally(new IllegalStateException("the node at " + address
                            + " is '" + proved + "', not '" + nodeId + "'"));
                    close();
                    return;
                }
                connected.complete(ch);
            });
        }

        /** The connection if it was made, else null (not yet, or failed). */
        private QuicChannel channel() {
            return connected.isDone() && !connected.isCompletedExceptionally() ? connected.join() : null;
        }

        void close() {
            QuicChannel ch = channel();
            if (ch != null) {
                ch.close();
            }
            QuicClient c = client.getAndSet(null);
            if (c != null) {
                // Closing waits for the socket, and the last reading scans /proc: never on an event loop (this may
                // run in a connect listener or as the connection ends).
                CompletableFuture.runAsync(() -> {
                    try {
                        c.udpCounters().ifPresent(r -> closedOutgoingDrops.addAndGet(r.drops()));
                        c.close();
                    } finally {
                        outgoingSockets.decrementAndGet();
                    }
                });
            }
        }

        /** Forgets this connection when it ends, so the next open connects again. */
        private final class Closing extends ChannelInboundHandlerAdapter {
            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                outgoing.remove(nodeId, Outgoing.this);
                close(); // its socket too: the next open connects from a socket of its own
                ctx.fireChannelInactive();
            }
        }
    }
}
