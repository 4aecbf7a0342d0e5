package dev.felix.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QuicLoopbackTest {

    private TlsMaterial tls;
    private QuicServer server;

    @BeforeEach
    void start() throws Exception {
        tls = TlsMaterial.generateSelfSigned(List.of());
        server = QuicServer.bind(new InetSocketAddress("127.0.0.1", 0), TransportConfig.defaults(), tls, null,
                new ChannelInboundHandlerAdapter(), new EchoInitializer());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void echoesOverAStreamWithTheServerCertificateTrusted() throws Exception {
        try (QuicClient client = QuicClient.create(server.localAddress(), "localhost", TransportConfig.defaults(),
                ClientTrust.certificates(tls.chain()), null)) {
            assertThat(echo(client, "hello")).isEqualTo("hello");
        }
    }

    @Test
    void echoesWithAPinnedFingerprint() throws Exception {
        try (QuicClient client = QuicClient.create(server.localAddress(), "anything", TransportConfig.defaults(),
                ClientTrust.pinnedFingerprint(tls.fingerprint()), null)) {
            assertThat(echo(client, "pinned")).isEqualTo("pinned");
        }
    }

    @Test
    void refusesAServerWhoseCertificateIsNotTrusted() throws Exception {
        TlsMaterial other = TlsMaterial.generateSelfSigned(List.of());
        try (QuicClient client = QuicClient.create(server.localAddress(), "localhost", TransportConfig.defaults(),
                ClientTrust.certificates(other.chain()), null)) {
            assertThat(client.connect(null, null).awaitUninterruptibly().isSuccess()).isFalse();
        }
    }

    @Test
    void refusesAWrongPinnedFingerprint() throws Exception {
        String wrong = TlsMaterial.generateSelfSigned(List.of()).fingerprint();
        try (QuicClient client = QuicClient.create(server.localAddress(), "localhost", TransportConfig.defaults(),
                ClientTrust.pinnedFingerprint(wrong), null)) {
            assertThat(client.connect(null, null).awaitUninterruptibly().isSuccess()).isFalse();
        }
    }

    @Test
    void generatedIdentityIsStoredAndReloadedWithTheSameFingerprint(@TempDir Path dir) throws Exception {
        TlsMaterial first = TlsMaterial.loadOrGenerate(dir, List.of("broker.example"));
        TlsMaterial second = TlsMaterial.loadOrGenerate(dir, List.of());
        assertThat(first.generated()).isTrue();
        assertThat(second.generated()).isFalse();
        assertThat(second.fingerprint()).isEqualTo(first.fingerprint());
        assertThat(first.certificate().getSubjectAlternativeNames())
                .extracting(l -> (Object) l.get(1))
                .contains("localhost", "broker.example");
        assertThat(java.nio.file.Files.getPosixFilePermissions(dir.resolve(TlsMaterial.KEY_FILE)))
                .hasSize(2);
    }

    @Test
    void aServerWithTwoEventLoops_listensWithTwoSocketsOnOnePort_andServesConnectionsOnBoth() throws Exception {
        java.util.Set<String> serverThreads = java.util.concurrent.ConcurrentHashMap.newKeySet();
        try (QuicServer two = QuicServer.bind(new InetSocketAddress("127.0.0.1", 0),
                TransportConfig.defaults().withIoThreads(2), tls, null, new SharedConnectionHandler(),
                new EchoInitializer(serverThreads))) {
            assertThat(two.sockets()).isEqualTo(2);
            // The kernel picks a socket by the client's address: 24 clients all on one would be a 1 in 8 million.
            for (int i = 0; i < 24; i++) {
                try (QuicClient client = QuicClient.create(two.localAddress(), "localhost", TransportConfig.defaults(),
                        ClientTrust.certificates(tls.chain()), null)) {
                    assertThat(echo(client, "client " + i)).isEqualTo("client " + i);
                }
            }
            assertThat(serverThreads).as("connections served by both event loops").hasSize(2);
        }
    }

    @Test
    void rejectsInvalidTransportSettingsNamingTheSetting() {
        assertThatThrownBy(() -> TransportConfig.defaults().withStreamWindowBytes(0))
                .hasMessageContaining("stream_window_bytes");
        assertThatThrownBy(() -> TransportConfig.defaults().withMaxUdpPayloadBytes(100))
                .hasMessageContaining("max_udp_payload_bytes");
    }

    private static String echo(QuicClient client, String text) throws Exception {
        QuicChannel connection = client.connect(null, null).get(10, TimeUnit.SECONDS);
        CompletableFuture<String> reply = new CompletableFuture<>();
        QuicStreamChannel stream = connection.createStream(QuicStreamType.BIDIRECTIONAL,
                new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf buf = (ByteBuf) msg;
                        reply.complete(buf.toString(StandardCharsets.UTF_8));
                        buf.release();
                    }
                }).get(10, TimeUnit.SECONDS);
        stream.writeAndFlush(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
        String result = reply.get(10, TimeUnit.SECONDS);
        connection.close().sync();
        return result;
    }

    /** A connection handler every connection of a server may share. */
    @ChannelHandler.Sharable
    static final class SharedConnectionHandler extends ChannelInboundHandlerAdapter {
    }

    @ChannelHandler.Sharable
    static final class EchoInitializer extends ChannelInitializer<QuicStreamChannel> {
        /** Names of the threads that echoed. */
        private final java.util.Set<String> threads;

        EchoInitializer() {
            this(java.util.concurrent.ConcurrentHashMap.newKeySet());
        }

        EchoInitializer(java.util.Set<String> threads) {
            this.threads = threads;
        }

        @Override
        protected void initChannel(QuicStreamChannel ch) {
            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    threads.add(Thread.currentThread().getName());
                    ctx.writeAndFlush(msg);
                }
            });
        }
    }
}
