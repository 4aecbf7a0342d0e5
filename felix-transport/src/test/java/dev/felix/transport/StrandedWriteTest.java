package dev.felix.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicConnectionCloseEvent;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A write whose own send closes the connection. Netty 4.2.18's QUIC stream, after quiche took part of a buffer, sends
 * the connection's packets and reschedules its timer; when that timer is already past (the event loop was busy when it
 * was due: the draining period after the client's close, or an idle timeout) the connection is closed right there,
 * its streams with it, and only then is the rest of the buffer queued, on a stream nothing will ever write or fail
 * again. The buffer is lost (a leak the soak found once in 20 minutes). {@link FrameBatch} releases such a buffer and
 * fails its promise.
 *
 * <p>The first test pins Netty's behaviour: should an upgrade make it fail (the stream no longer strands the buffer),
 * {@link StreamWrites} may no longer be needed, and must be checked against the new code before it is kept.
 *
 * <p>Made to happen every time: the client's stream window (16 KiB) takes only part of a 256 KiB write, the client
 * closes its connection, and the server's event loop is kept busy past the draining period (3 probe timeouts, well
 * under 500 ms on a quiet loopback) before the write; longer, in a new connection, when the write found the period not
 * yet over ({@link #BUSY_MILLIS}).
 */
@Timeout(60)
class StrandedWriteTest {

    private static final int WINDOW = 16 << 10;
    private static final int WRITE = 256 << 10;

    /** The outcome of a write made on a stream whose connection the client has closed. */
    private record Outcome(boolean activeBefore, boolean activeAfter, int refCnt, boolean promiseDone,
            Throwable cause) {
    }

    @Test
    void nettysStreamAlone_strandsTheBuffer_whenTheWriteClosesTheConnection() throws Exception {
        Outcome o = writeAfterTheClientsClose((stream, promise) -> {
            ByteBuf b = stream.alloc().directBuffer(WRITE).writeZero(WRITE);
            stream.writeAndFlush(b, promise);
            return b;
        });
        assertThat(o.activeBefore).as("the stream was open when written").isTrue();
        assertThat(o.activeAfter).as("the write closed it").isFalse();
        assertThat(o.promiseDone).as("the write neither done nor failed").isFalse();
        assertThat(o.refCnt).as("the buffer still held, by a queue nothing will look at again").isEqualTo(1);
    }

    @Test
    void aFrameBatch_releasesAStrandedBuffer_andFailsItsPromise() throws Exception {
        Outcome o = writeAfterTheClientsClose((stream, promise) -> {
            FrameBatch batch = new FrameBatch(stream);
            ByteBuf b = stream.alloc().directBuffer(WRITE).writeZero(WRITE); // large: written as it is
            batch.add(b, promise);
            stream.flush();
            return b;
        });
        assertThat(o.activeBefore).isTrue();
        assertThat(o.activeAfter).isFalse();
        assertThat(o.refCnt).as("released").isZero();
        assertThat(o.promiseDone).isTrue();
        assertThat(o.cause).isInstanceOf(java.nio.channels.ClosedChannelException.class);
    }

    @Test
    void aFrameBatch_releasesAStrandedMergedBuffer() throws Exception {
        Outcome o = writeAfterTheClientsClose((stream, promise) -> {
            FrameBatch batch = new FrameBatch(stream);
            ByteBuf last = null;
            for (int i = 0; i < 4; i++) { // 4 small frames: merged into one buffer of the batch's own
                last = stream.alloc().directBuffer(FrameBatch.COPY_LIMIT).writeZero(FrameBatch.COPY_LIMIT);
                batch.add(last, i == 3 ? promise : null);
            }
            batch.write();
            stream.flush();
            return null;
        });
        assertThat(o.activeBefore).isTrue();
        assertThat(o.activeAfter).isFalse();
        assertThat(o.promiseDone).as("the merged write failed, and the frame's promise with it").isTrue();
        assertThat(o.cause).isInstanceOf(java.nio.channels.ClosedChannelException.class);
    }

    /**
     * How long the server's event loop is kept busy after the client's close, attempt by attempt. The draining period
     * is three probe timeouts, from the connection's round-trip estimate: well under 500 ms on a quiet loopback, but
     * a handshake slowed by a loaded machine (the full build runs beside other work) inflates that estimate, and once
     * the period outlasted 500 ms, so the write found the connection still draining and closed nothing.
     */
    private static final long[] BUSY_MILLIS = {500, 1_500, 4_000};

    /**
     * What writing (with {@code write}, which returns the buffer to watch or null) shows once the client closed: the
     * first attempt whose write found the draining period over (the write closed the connection), or the last.
     */
    private Outcome writeAfterTheClientsClose(Writer write) throws Exception {
        Outcome o = null;
        for (long busy : BUSY_MILLIS) {
            o = writeAfterTheClientsClose(write, busy);
            if (!o.activeAfter) {
                return o;
            }
            System.out.printf("the draining period outlasted %d ms of a busy loop: the write closed nothing; again%n",
                    busy);
        }
        return o;
    }

    private Outcome writeAfterTheClientsClose(Writer write, long busyMillis) throws Exception {
        TlsMaterial tls = TlsMaterial.generateSelfSigned(List.of());
        CompletableFuture<QuicStreamChannel> serverStream = new CompletableFuture<>();
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        ChannelInboundHandlerAdapter onClose = new ChannelInboundHandlerAdapter() {
            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                if (evt instanceof QuicConnectionCloseEvent) {
                    // The loop stays busy past the draining period's end, then writes (as a watch drain did).
                    ctx.channel().eventLoop().execute(() -> {
                        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(busyMillis);
                        while (System.nanoTime() < until) {
                            Thread.onSpinWait();
                        }
                        QuicStreamChannel stream = serverStream.join();
                        boolean before = stream.isActive();
                        ChannelPromise promise = stream.newPromise();
                        ByteBuf b = write.write(stream, promise);
                        outcome.complete(new Outcome(before, stream.isActive(), b == null ? -1 : b.refCnt(),
                                promise.isDone(), promise.cause()));
                        if (b != null && b.refCnt() > 0 && !stream.isActive()) {
                            b.release(b.refCnt()); // stranded: the test frees it
                        }
                    });
                }
                ctx.fireUserEventTriggered(evt);
            }

            @Override
            public boolean isSharable() {
                return true;
            }
        };
        ChannelInitializer<QuicStreamChannel> streams = new ChannelInitializer<>() {
            @Override
            protected void initChannel(QuicStreamChannel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ((ByteBuf) msg).release();
                        serverStream.complete((QuicStreamChannel) ctx.channel());
                    }
                });
            }
        };
        TransportConfig clientConfig = TransportConfig.defaults().withStreamWindowBytes(WINDOW);
        try (QuicServer server = QuicServer.bind(new InetSocketAddress("127.0.0.1", 0), TransportConfig.defaults(),
                tls, null, onClose, streams);
                QuicClient client = QuicClient.create(server.localAddress(), "localhost", clientConfig,
                        ClientTrust.certificates(tls.chain()), null)) {
            QuicChannel connection = client.connect(null, null).get(10, TimeUnit.SECONDS);
            QuicStreamChannel stream = connection.createStream(QuicStreamType.BIDIRECTIONAL,
                    new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ((ByteBuf) msg).release();
                        }
                    }).get(10, TimeUnit.SECONDS);
            stream.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1}));
            serverStream.get(10, TimeUnit.SECONDS);
            connection.close().sync();
            return outcome.get(20, TimeUnit.SECONDS);
        }
    }

    @FunctionalInterface
    private interface Writer {
        ByteBuf write(QuicStreamChannel stream, ChannelPromise promise);
    }
}
