package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.server.TestBroker;
import dev.felix.transport.StreamWrites;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.quic.QuicStreamChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SDK's lone frame (a {@link FrameStream} drain with one frame queued) goes through {@link StreamWrites}: when
 * the write closes its own connection inside Netty 4.2.18 (see {@code StreamWrites}), the frame is released and its
 * future fails, instead of waiting forever on a dead stream's queue. Without that, the future below never completes.
 *
 * <p>Made to happen every time, the way a frozen peer would: the client's idle timeout is 300 ms; on its event loop it
 * sends a datagram (ack-eliciting, as the keep-alive is; a later send then no longer restarts the idle timer) and
 * stays busy for a second, reading nothing, so the idle timer is past due; then a frame larger than the broker's
 * 64 KiB stream window is written: quiche takes part of it, Netty sends, its overdue timer fires and closes the
 * connection, and only then would the rest be queued.
 */
@Timeout(60)
class StrandedFrameStreamWriteTest {

    @TempDir
    Path dir;

    private static final int WRITE = 1 << 20;

    private record Outcome(boolean done, Throwable cause, boolean active) {
    }

    @Test
    void aLoneFrameWhoseWriteClosesTheConnection_isReleasedAndItsFutureFails() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("stream_window_bytes", Integer.toString(64 << 10)));
                // Keep-alives every 50 ms hold the connection open until the test stops the client's loop; without
                // them a pause over 300 ms while the test sets up (a loaded machine) could end it too early.
                FelixClient client = broker.connect(b -> b.maxFrameBytes(16 << 20).keepAlive(Duration.ofMillis(50))
                        .transport(ClientConfig.DEFAULT_TRANSPORT.toBuilder().idleTimeout(Duration.ofMillis(300))
                                .build()))) {
            FrameStream frames = client.publisher(StreamRef.parse("t1/default/stranded")).frames();
            QuicStreamChannel channel = frames.channel();
            long strandedBefore = StreamWrites.stranded();
            CompletableFuture<Outcome> outcome = new CompletableFuture<>();
            ByteBuf[] frame = new ByteBuf[1];
            channel.eventLoop().execute(() -> {
                // Something the broker must acknowledge goes out first (a datagram, as the keep-alive is): a send
                // restarts the idle timer only when nothing ack-eliciting was sent since the last packet read.
                channel.parent().writeAndFlush(io.netty.buffer.Unpooled.wrappedBuffer(new byte[] {0}));
                busyFor(Duration.ofSeconds(1));
                // Not from the channel's pool: one pooled buffer of 1 MiB makes Netty's adaptive allocator size every
                // later chunk at 8 MiB and keep them, which ChurnLeakSoakTest, later in this JVM, would count.
                frame[0] = io.netty.buffer.Unpooled.directBuffer(WRITE).writeZero(WRITE);
                frame[0].retain(); // the test's own reference, to see the stream's released
                ChannelFuture written = frames.write(frame[0]);
                // The drain that writes it was queued just now and runs next; this task runs after it.
                channel.eventLoop().execute(() -> outcome.complete(new Outcome(written.isDone(), written.cause(),
                        channel.isActive())));
            });
            Outcome o = outcome.get(20, TimeUnit.SECONDS);
            try {
                assertThat(o.active).as("the write closed the connection").isFalse();
                assertThat(o.done).as("the write's future completed").isTrue();
                assertThat(o.cause).isInstanceOf(ClosedChannelException.class);
                assertThat(frame[0].refCnt()).as("only the test's reference is left").isEqualTo(1);
                assertThat(StreamWrites.stranded() - strandedBefore).isEqualTo(1);
            } finally {
                frame[0].release(frame[0].refCnt());
            }
        }
    }

    static void busyFor(Duration d) {
        long until = System.nanoTime() + d.toNanos();
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }
}
