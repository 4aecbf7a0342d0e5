package dev.felix.cluster.metadata;

import dev.felix.cluster.tls.CertificateRefusedException;
import dev.felix.cluster.tls.ClusterTls;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLException;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.security.TlsConf;
import org.apache.ratis.thirdparty.io.grpc.netty.GrpcHttp2ConnectionHandler;
import org.apache.ratis.thirdparty.io.grpc.netty.GrpcSslContexts;
import org.apache.ratis.thirdparty.io.grpc.netty.InternalProtocolNegotiator;
import org.apache.ratis.thirdparty.io.grpc.netty.InternalProtocolNegotiators;
import org.apache.ratis.thirdparty.io.netty.channel.ChannelHandler;
import org.apache.ratis.thirdparty.io.netty.channel.ChannelHandlerContext;
import org.apache.ratis.thirdparty.io.netty.channel.ChannelInboundHandlerAdapter;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.ClientAuth;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.SslContext;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.SslContextBuilder;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.SslProvider;
import org.apache.ratis.thirdparty.io.netty.util.AsciiString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mutual TLS 1.3 for the Raft RPC of the metadata group, on Ratis' gRPC transport.
 *
 * <p><b>Why gRPC.</b> Of the Ratis 3.3.0 transports only ratis-grpc secures the Raft RPC itself (server,
 * client and admin services) with TLS ({@link GrpcTlsConfig}, mutual TLS included); ratis-netty offers TLS for
 * its data-stream path only. Ratis shades gRPC and Netty inside its own packages, so nothing here meets the
 * broker's Netty 4.2.
 *
 * <p><b>What it sets.</b> One {@link GrpcTlsConfig} for every client and server context: this node's chain and
 * key, the cluster CA's trust manager ({@link ClusterTls#trustManager()}), client certificates required,
 * protocol TLSv1.3 only, the JDK's TLS provider. A connecting node checks the server's certificate against the
 * CA and its name against the host it dialled; the accepting node checks the client's certificate against the
 * CA. The accepting side's TLS handshake is wrapped ({@link GrpcServices}' customizer replaces the server's
 * protocol negotiator with the same TLS negotiator plus a listener) so that a refused peer is logged with its
 * remote address and the reason, which names the certificate's subject and issuer ({@code refused a Raft
 * connection from /127.0.0.1:50412: the client certificate 'CN=rogue' (issued by 'CN=…') does not chain to the
 * cluster CA 'CN=…'}); a handshake the peer aborted is logged as failed, with the TLS stack's reason. At WARN,
 * at most once per remote host every 10 s.
 *
 * <p><b>Threads.</b> Built once per server; the handshake listener runs on gRPC's event loops.
 */
final class RaftTls {

    private static final Logger LOG = LoggerFactory.getLogger(RaftTls.class);
    /** Least time between two logged refusals of the same remote host. */
    private static final long LOG_EVERY_MS = 10_000;

    private RaftTls() {
    }

    /** Ratis parameters carrying the TLS configuration for a server and its clients. */
    static Parameters parameters(ClusterTls tls) {
        TlsConf.PrivateKeyConf key = new TlsConf.PrivateKeyConf(tls.privateKey());
        TlsConf.CertificatesConf chain = new TlsConf.CertificatesConf(tls.certificateChain());
        GrpcTlsConfig conf = GrpcTlsConfig.newBuilder()
                .setName("felix-cluster")
                .setPrivateKey(key)
                .setKeyCertificates(chain)
                .setTrustManager(tls.trustManager())
                .setMutualTls(true)
                .setProtocols("TLSv1.3")
                .setSslProvider(SslProvider.JDK)
                .build();
        Parameters p = new Parameters();
        GrpcConfigKeys.TLS.setConf(p, conf);
        SslContext server = serverContext(tls);
        GrpcConfigKeys.Server.setServicesCustomizer(p, (builder, types) ->
                builder.protocolNegotiator(new RefusalLoggingNegotiator(
                        InternalProtocolNegotiators.serverTls(server))));
        return p;
    }

    private static SslContext serverContext(ClusterTls tls) {
        try {
            SslContextBuilder b = SslContextBuilder.forServer(tls.privateKey(), tls.certificateChain())
                    .trustManager(tls.trustManager())
                    .clientAuth(ClientAuth.REQUIRE);
            b = GrpcSslContexts.configure(b, SslProvider.JDK);
            return b.protocols("TLSv1.3").build();
        } catch (SSLException e) {
            throw new IllegalStateException("cannot build the Raft server's TLS context: " + e.getMessage(), e);
        }
    }

    /** The server TLS negotiator, with a listener that logs every failed handshake with the remote address. */
    private static final class RefusalLoggingNegotiator implements InternalProtocolNegotiator.ProtocolNegotiator {
        private final InternalProtocolNegotiator.ProtocolNegotiator tls;
        private final ConcurrentHashMap<String, Long> lastLogged = new ConcurrentHashMap<>();

        RefusalLoggingNegotiator(InternalProtocolNegotiator.ProtocolNegotiator tls) {
            this.tls = tls;
        }

        @Override
        public AsciiString scheme() {
            return tls.scheme();
        }

        @Override
        public ChannelHandler newHandler(GrpcHttp2ConnectionHandler grpcHandler) {
            ChannelHandler handshake = tls.newHandler(grpcHandler);
            return new ChannelInboundHandlerAdapter() {
                @Override
                public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
                    // [this, rest...] becomes [handshake, observer, rest...]: the TLS handler passes a failed
                    // handshake on as an exception, which the observer sees on its way to gRPC's exception sink.
                    String name = ctx.name() + "-tls";
                    ctx.pipeline().addAfter(ctx.name(), name, handshake);
                    ctx.pipeline().addAfter(name, ctx.name() + "-tls-refusals", new HandshakeObserver());
                    ctx.pipeline().remove(this);
                }
            };
        }

        /** Logs the first TLS handshake failure of its connection, with the remote address. */
        private final class HandshakeObserver extends ChannelInboundHandlerAdapter {
            private boolean logged;

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
                if (!logged && handshakeFailure(cause)) {
                    logged = true;
                    refused(ctx.channel().remoteAddress(), cause);
                }
                super.exceptionCaught(ctx, cause);
            }
        }

        private void refused(SocketAddress remote, Throwable cause) {
            String host = String.valueOf(remote);
            int colon = host.lastIndexOf(':');
            if (colon > 0) {
                host = host.substring(0, colon);
            }
            long now = System.currentTimeMillis();
            Long before = lastLogged.get(host);
            if (before != null && now - before < LOG_EVERY_MS) {
                return;
            }
            lastLogged.put(host, now);
            if (refusedHere(cause)) {
                LOG.warn("refused a Raft connection from {}: {}", remote, reason(cause));
            } else {
                LOG.warn("TLS handshake with the Raft peer at {} failed: {}", remote, reason(cause));
            }
        }

        @Override
        public void close() {
            tls.close();
        }
    }

    static boolean handshakeFailure(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof javax.net.ssl.SSLHandshakeException) {
                return true;
            }
        }
        return false;
    }

    /** Whether this side's trust manager refused the peer's certificate (rather than the peer refusing ours). */
    static boolean refusedHere(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof CertificateRefusedException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Why a handshake failed: the trust manager's words when it refused the peer's certificate (they name the
     * subject and issuer), else the TLS stack's message.
     */
    static String reason(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof CertificateRefusedException) {
                return c.getMessage();
            }
        }
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c.getMessage() != null) {
                return c.getMessage();
            }
        }
        return String.valueOf(t);
    }
}
