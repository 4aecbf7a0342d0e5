package dev.felix.server.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.client.StreamRef;
import dev.felix.server.TestBroker;
import dev.felix.transport.StreamWrites;
import dev.felix.wire.Message;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reply the broker writes on a stream ({@link StreamSession#write}) goes through {@link StreamWrites}: when the
 * write closes its own connection inside Netty 4.2.18 (see {@code StreamWrites}), the reply's buffer is released
 * instead of left on a dead stream's queue. Without that, nothing here is counted as stranded, and the buffer (a
 * pooled copy the test cannot reach) stays allocated for good.
 *
 * <p>Made to happen every time, the way a frozen client would: the client's idle timeout is 300 ms (the connection
 * takes the smaller of both sides'); on the broker's event loop a small reply goes out (ack-eliciting: a later send
 * then no longer restarts the idle timer), the loop stays busy for a second, reading nothing, so the idle timer is
 * past due; then a reply larger than the client's 64 KiB stream window is written: quiche takes part of it, Netty
 * sends, its overdue timer fires and closes the connection, and only then would the rest be queued.
 */
@Timeout(60)
class StrandedReplyWriteTest {

    @TempDir
    Path dir;

    private static final int REPLY = 1 << 20;

    private record Outcome(boolean active, long stranded) {
    }

    @Test
    void aReplyWhoseWriteClosesTheConnection_isReleased() throws Exception {
        try (TestBroker broker = TestBroker.start(dir);
                // Keep-alives every 50 ms hold the connection open until the test stops the broker's loop; without
                // them a pause over 300 ms while the test sets up (a loaded machine) ended it too early.
                FelixClient client = broker.connect(b -> b.keepAlive(Duration.ofMillis(50))
                        .transport(ClientConfig.DEFAULT_TRANSPORT.toBuilder().idleTimeout(Duration.ofMillis(300))
                                .streamWindowBytes(64 << 10).build()))) {
            ServerContext context = BrokerInternals.context(broker.server());
            QuicChannel connection = BrokerInternals.onlyConnection(context);
            CompletableFuture<QuicStreamChannel> stream = new CompletableFuture<>();
            BrokerInternals.addOnLoop(connection, true, new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    if (msg instanceof QuicStreamChannel s) { // a stream the client opened, on its way to be served
                        stream.complete(s);
                    }
                    ctx.fireChannelRead(msg);
                }
            });
            client.publisher(StreamRef.parse("t1/default/stranded"));
            QuicStreamChannel channel = stream.get(10, TimeUnit.SECONDS);

            CompletableFuture<Outcome> outcome = new CompletableFuture<>();
            channel.eventLoop().execute(() -> {
                StreamSession session = new StreamSession(null, channel, null, () -> { });
                long strandedBefore = StreamWrites.stranded();
                session.write(new Message.ErrorMessage("first", "internal", null, null, null));
                busyFor(Duration.ofSeconds(1));
                session.write(new Message.ErrorMessage("x".repeat(REPLY), "internal", null, null, null));
                outcome.complete(new Outcome(channel.isActive(), StreamWrites.stranded() - strandedBefore));
            });
            Outcome o = outcome.get(20, TimeUnit.SECONDS);
            assertThat(o.active).as("the write closed the connection").isFalse();
            assertThat(o.stranded).as("the reply's buffer released where Netty stranded it").isEqualTo(1);
        }
    }

    private static void busyFor(Duration d) {
        long until = System.nanoTime() + d.toNanos();
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }

}
