package dev.felix.server.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.client.FelixClient;
import dev.felix.client.StreamRef;
import dev.felix.client.SubscribeOptions;
import dev.felix.server.TestBroker;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicConnectionCloseEvent;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker closes its side of a connection as soon as the client's CONNECTION_CLOSE has been read, instead of
 * letting QUIC drain it for three probe timeouts: during that period writers (a watch's snapshot, replies) would go
 * on writing to a connection nobody reads, and a write that meets the period's end strands its buffer in Netty
 * 4.2.18 (see {@code StreamWrites}).
 *
 * <p>Deterministic: the probe sits after {@link ConnectionHandler} in the connection's pipeline and, when the close
 * event reaches it, queues a task on the connection's event loop. Tasks run in order, so the task sees the channel
 * after the close that {@link ConnectionHandler} queued first; without that close it would find the connection
 * still draining (active), tens of milliseconds before QUIC ends it.
 */
@Timeout(60)
class ClientCloseTest {

    @TempDir
    Path dir;

    @Test
    void theBrokerClosesTheConnectionOnceTheClientsCloseIsRead_notAfterDraining() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("idle_timeout_ms", "60000"))) {
            FelixClient client = broker.connect();
            client.subscribe(SubscribeOptions.of(StreamRef.parse("t1/default/closing")));
            ServerContext context = BrokerInternals.context(broker.server());
            QuicChannel connection = BrokerInternals.onlyConnection(context);

            CompletableFuture<Boolean> activeAfterTheClose = new CompletableFuture<>();
            BrokerInternals.addOnLoop(connection, false, new ChannelInboundHandlerAdapter() {
                @Override
                public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                    if (evt instanceof QuicConnectionCloseEvent) {
                        ctx.channel().eventLoop().execute(() -> activeAfterTheClose.complete(ctx.channel().isActive()));
                    }
                    ctx.fireUserEventTriggered(evt);
                }
            });
            client.close();

            assertThat(activeAfterTheClose.get(10, TimeUnit.SECONDS)).as("still active after the client's close")
                    .isFalse();
            assertThat(connection.isOpen()).isFalse();
            assertThat(context.connections).as("forgotten").isEmpty();
            assertThat(broker.server().metrics().scrape())
                    .contains("felix_connection_closes_total{by=\"client\",reason=\"normal\"} 1");
        }
    }

}
