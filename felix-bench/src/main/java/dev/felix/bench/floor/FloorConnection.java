package dev.felix.bench.floor;

import dev.felix.bench.system.Target;
import dev.felix.transport.ClientTrust;
import dev.felix.transport.QuicClient;
import dev.felix.transport.TransportConfig;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One client connection to the floor: its own UDP socket and event-loop thread (as each benchmark {@code
 * FelixClient} has), one QUIC connection and one stream, opened as a subscriber or a publisher of one topic.
 * A subscriber's messages reach the handler on the event loop, read in place (as Felix's benchmark subscribers
 * read theirs); a publisher's calls come from one caller thread.
 */
final class FloorConnection implements Target.Publisher, AutoCloseable {

    private static final long WAIT_SECONDS = 30;

    private final QuicClient client;
    private final QuicChannel connection;
    private final QuicStreamChannel stream;
    /** Acks read for this publisher and not yet waited for. */
    private final Semaphore acks;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    /** Opens a connection and a stream to {@code topic} as {@code role}; returns once the server said ready. */
    static FloorConnection open(InetSocketAddress server, TransportConfig config, ClientTrust trust, byte role,
            String topic, Target.Handler handler) throws Exception {
        QuicClient client = QuicClient.create(server, "localhost", config, trust, null);
        try {
            QuicChannel connection = client.connect(null, null).get(WAIT_SECONDS, TimeUnit.SECONDS);
            CompletableFuture<Void> ready = new CompletableFuture<>();
            Semaphore acks = new Semaphore(0);
            QuicStreamChannel stream = connection.createStream(QuicStreamType.BIDIRECTIONAL,
                    new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new FloorFrames.Runs(), new Reader(ready, acks, handler));
                        }
                    }).get(WAIT_SECONDS, TimeUnit.SECONDS);
            byte[] name = FloorFrames.utf8(topic);
            ByteBuf hello = stream.alloc().directBuffer(FloorFrames.HEADER + name.length);
            FloorFrames.write(hello, role, name);
            stream.writeAndFlush(hello);
            ready.get(WAIT_SECONDS, TimeUnit.SECONDS);
            return new FloorConnection(client, connection, stream, acks);
        } catch (Exception e) {
            client.close();
            throw e;
        }
    }

    private FloorConnection(QuicClient client, QuicChannel connection, QuicStreamChannel stream, Semaphore acks) {
        this.client = client;
        this.connection = connection;
        this.stream = stream;
        this.acks = acks;
    }

    @Override
    public void publishConfirmed(byte[] message) throws Exception {
        ByteBuf frame = stream.alloc().directBuffer(FloorFrames.HEADER + message.length);
        FloorFrames.write(frame, FloorFrames.CONFIRMED, message);
        stream.writeAndFlush(frame, stream.voidPromise());
        awaitAck();
    }

    /** One {@link FloorFrames#BATCH} frame for the whole list, so the server passes it on whole (as Felix does). */
    @Override
    public void publishBatch(List<byte[]> messages) {
        int body = 0;
        for (byte[] m : messages) {
            body += 4 + m.length;
        }
        ByteBuf frame = stream.alloc().directBuffer(FloorFrames.HEADER + body);
        frame.writeByte(FloorFrames.BATCH).writeInt(body);
        for (byte[] m : messages) {
            frame.writeInt(m.length).writeBytes(m);
        }
        stream.writeAndFlush(frame, stream.voidPromise());
    }

    @Override
    public void flush() throws Exception {
        ByteBuf ping = stream.alloc().directBuffer(FloorFrames.HEADER);
        FloorFrames.writeEmpty(ping, FloorFrames.PING, 1);
        stream.writeAndFlush(ping, stream.voidPromise());
        awaitAck();
    }

    private void awaitAck() throws Exception {
        if (!acks.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)) {
            throw new java.util.concurrent.TimeoutException("quic-floor: no ack within " + WAIT_SECONDS + " s");
        }
    }

    /** Closes the connection and its socket; again (the target closes what is still open) does nothing. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        connection.close().awaitUninterruptibly(WAIT_SECONDS, TimeUnit.SECONDS);
        client.close();
    }

    /** Reads the server's frames: ready, acks, and (for a subscriber) messages, handed over in place. */
    private static final class Reader extends ChannelInboundHandlerAdapter {
        private final CompletableFuture<Void> ready;
        private final Semaphore acks;
        private final Target.Handler handler;

        Reader(CompletableFuture<Void> ready, Semaphore acks, Target.Handler handler) {
            this.ready = ready;
            this.acks = acks;
            this.handler = handler;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf run = (ByteBuf) msg;
            try {
                int acked = 0;
                for (int at = run.readerIndex(); at < run.writerIndex(); ) {
                    byte kind = run.getByte(at);
                    int length = FloorFrames.length(run, at);
                    int body = at + FloorFrames.HEADER;
                    if (kind == FloorFrames.CONFIRMED && handler != null) {
                        handler.onMessage(run.nioBuffer(body, length));
                    } else if (kind == FloorFrames.BATCH && handler != null) {
                        for (int m = body; m < body + length; m += 4 + run.getInt(m)) {
                            handler.onMessage(run.nioBuffer(m + 4, run.getInt(m)));
                        }
                    } else if (kind == FloorFrames.ACK) {
                        acked++;
                    } else if (kind == FloorFrames.READY) {
                        ready.complete(null);
                    }
                    at = body + length;
                }
                if (acked > 0) {
                    acks.release(acked);
                }
            } finally {
                run.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ready.completeExceptionally(cause);
            ctx.close();
        }
    }
}
