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

    /**
     * Adds {@code handler} to {@code channel}'s pipeline (first or last) on the channel's event loop, and returns once it
     * is in place. Added from another thread, a handler sees no event until the loop has run its {@code handlerAdded}
     * task, and the loop may read first: an event it should have seen passes it by.
     */
    static void addOnLoop(io.netty.channel.Channel channel, boolean first, io.netty.channel.ChannelHandler handler)
            throws Exception {
        channel.eventLoop().submit(() -> {
            if (first) {
                channel.pipeline().addFirst(handler);
            } else {
                channel.pipeline().addLast(handler);
            }
        }).get(10, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** The broker's side of its one client connection (fails when there is not exactly one). */
    static QuicChannel onlyConnection(ServerContext context) {
        assertThat(context.connections).hasSize(1);
        return context.connections.iterator().next().channel();
    }
}
