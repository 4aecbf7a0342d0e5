package dev.felix.server.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.server.FelixServer;
import io.netty.handler.codec.quic.QuicChannel;

/** What protocol tests reach inside a running broker: its protocol context and its connections. */
final class BrokerInternals {

    private BrokerInternals() {
    }

    /** The broker's protocol context; FelixServer keeps it to itself (it lives in another package). */
    static ServerContext context(FelixServer server) throws ReflectiveOperationException {
        java.lang.reflect.Field f = FelixServer.class.getDeclaredField("context");
        f.setAccessible(true);
        return (ServerContext) f.get(server);
    }

    /** The broker's side of its one client connection (fails when there is not exactly one). */
    static QuicChannel onlyConnection(ServerContext context) {
        assertThat(context.connections).hasSize(1);
        return context.connections.iterator().next().channel();
    }
}
