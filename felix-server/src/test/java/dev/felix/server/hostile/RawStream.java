package dev.felix.server.hostile;

import static org.awaitility.Awaitility.await;

import dev.felix.wire.FrameHeader;
import dev.felix.wire.Message;
import dev.felix.wire.WireCodec;
import dev.felix.wire.WireException;
import dev.felix.wire.WirePayload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.handler.codec.quic.DefaultQuicStreamFrame;
import io.netty.handler.codec.quic.QuicStreamChannel;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One raw QUIC stream of a {@link RawConnection}: writes whatever bytes it is given and records every
 * byte the broker sends back and how the broker's side ended (FIN, reset, or not at all). No Felix
 * logic in the transport path, so malformed input really reaches the broker as written.
 *
 * <p>Thread-safe: the recording side runs on the connection's event loop, the test thread reads.
 */
final class RawStream extends ChannelInboundHandlerAdapter {

    /** How the broker's sending side of the stream ended, as seen by the client. */
    enum End {
        /** Clean end: FIN after the data. */
        FIN,
        /** RESET_STREAM (or another stream failure) from the broker. */
        RESET,
        /** Not ended within the time waited. */
        OPEN
    }

    /** A decoded frame the broker sent: its flags, the payload, and the raw JSON text when flags are 0. */
    record Received(int flags, WirePayload payload, String json) {
        Message message() {
            return (Message) payload;
        }
    }

    static final Duration WAIT = Duration.ofSeconds(10);

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private volatile QuicStreamChannel channel;
    private volatile boolean fin;
    private volatile Throwable failure;
    private volatile boolean inactive;

    QuicStreamChannel channel() {
        return channel;
    }

    // ------------------------------------------------------------------ netty side

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = (QuicStreamChannel) ctx.channel();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        try {
            byte[] chunk = new byte[buf.readableBytes()];
            buf.readBytes(chunk);
            synchronized (bytes) {
                bytes.write(chunk, 0, chunk.length);
            }
        } finally {
            buf.release();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent || evt instanceof ChannelInputShutdownReadComplete) {
            fin = true;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (failure == null) {
            failure = cause;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        inactive = true;
        ctx.fireChannelInactive();
    }

    // ------------------------------------------------------------------ writing

    /** Writes {@code data} as given (no framing added). */
    ChannelFuture send(byte[] data) {
        return channel.writeAndFlush(Unpooled.wrappedBuffer(data));
    }

    /** Writes the frame of {@code message}. */
    ChannelFuture send(Message message) {
        return send(WireCodec.encodeFrame(message));
    }

    /**
     * Writes the frame of {@code message} with our FIN in the same STREAM frame. A bare FIN sent after the
     * data has gone out is not retransmitted by quiche when its packet is lost (see
     * {@code dev.felix.transport.StreamEnds}), so tests that need the broker to see our end for certain
     * attach it to the last request, as the SDK does wherever it can.
     */
    ChannelFuture sendLast(Message message) {
        return channel.writeAndFlush(new DefaultQuicStreamFrame(
                Unpooled.wrappedBuffer(WireCodec.encodeFrame(message)), true));
    }

    /** Ends our side cleanly (FIN). */
    void finish() {
        channel.shutdownOutput().awaitUninterruptibly(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Resets our sending side (RESET_STREAM with {@code code}). */
    void resetOutput(int code) {
        channel.shutdownOutput(code).awaitUninterruptibly(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Stops reading: STOP_SENDING to the peer (as the SDK does to unsubscribe), then closes the channel. */
    void stopReading() {
        QuicStreamChannel c = channel;
        c.shutdownInput(0).awaitUninterruptibly(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        c.close();
    }

    /** Closes the stream channel without waiting; Netty sends FIN if ours is not finished, nothing else. */
    void close() {
        QuicStreamChannel c = channel;
        if (c != null) {
            c.close();
        }
    }

    // ------------------------------------------------------------------ reading

    byte[] receivedBytes() {
        synchronized (bytes) {
            return bytes.toByteArray();
        }
    }

    /** Every whole frame received so far, decoded; stops at an incomplete tail. */
    List<Received> frames() {
        ByteBuffer buf = ByteBuffer.wrap(receivedBytes());
        List<Received> out = new ArrayList<>();
        while (buf.remaining() >= FrameHeader.HEADER_LENGTH) {
            int declared = buf.getInt(buf.position() + FrameHeader.LENGTH_OFFSET);
            if (Integer.toUnsignedLong(declared) > buf.remaining() - FrameHeader.HEADER_LENGTH) {
                break; // incomplete frame: wait for more
            }
            try {
                var frame = WireCodec.readFrame(buf, FrameHeader.DEFAULT_MAX_FRAME_BYTES);
                String json = null;
                if (frame.flags() == 0) {
                    ByteBuffer copy = frame.payload().duplicate();
                    byte[] text = new byte[copy.remaining()];
                    copy.get(text);
                    json = new String(text, StandardCharsets.UTF_8);
                }
                out.add(new Received(frame.flags(), WireCodec.decode(frame), json));
            } catch (WireException e) {
                throw new AssertionError("the broker sent an undecodable frame: " + e.getMessage(), e);
            }
        }
        return out;
    }

    /** Waits for at least {@code n} whole frames and returns all received so far. */
    List<Received> awaitFrames(int n) {
        List<Received> now = frames();
        if (now.size() >= n) {
            return now;
        }
        try {
            await().atMost(WAIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                    .until(() -> frames().size() >= n);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("expected " + n + " frame(s) from the broker within " + WAIT + ", got "
                    + frames() + " (end " + endNow() + ")", e);
        }
        return frames();
    }

    /** The {@code n}-th frame (0-based), waiting for it. */
    Received frame(int n) {
        return awaitFrames(n + 1).get(n);
    }

    /** The broker's side has ended (or the stream failed) — without waiting. */
    End endNow() {
        if (fin) {
            return End.FIN;
        }
        if (failure != null || inactive) {
            return End.RESET;
        }
        return End.OPEN;
    }

    /** Waits up to {@code timeout} for the broker's side to end; {@link End#OPEN} if it did not. */
    End awaitEnd(Duration timeout) {
        if (endNow() != End.OPEN) {
            return endNow();
        }
        try {
            await().atMost(timeout).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                    .until(() -> endNow() != End.OPEN);
        } catch (ConditionTimeoutException e) {
            return End.OPEN;
        }
        return endNow();
    }

    End awaitEnd() {
        return awaitEnd(WAIT);
    }

    boolean inactive() {
        return inactive;
    }

    Throwable failure() {
        return failure;
    }

    @Override
    public String toString() {
        return "RawStream[" + (channel == null ? "?" : channel.streamId()) + ", end=" + endNow() + ", frames="
                + frames() + "]";
    }
}
