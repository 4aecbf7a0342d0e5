package dev.felix.server.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.wire.Message;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * One QUIC connection of a {@link RawFelixClient}. Opens raw streams; streams the broker opens (event
 * streams) are recorded as {@link RawStream}s in {@link #incoming()}.
 */
final class RawConnection implements AutoCloseable {

    static final String TENANT = "t1";

    private final QuicChannel channel;
    private final List<RawStream> incoming;

    private RawConnection(QuicChannel channel, List<RawStream> incoming) {
        this.channel = channel;
        this.incoming = incoming;
    }

    static RawConnection connect(RawFelixClient client) {
        List<RawStream> incoming = new CopyOnWriteArrayList<>();
        ChannelInitializer<QuicStreamChannel> brokerStreams = new ChannelInitializer<>() {
            @Override
            protected void initChannel(QuicStreamChannel ch) {
                RawStream s = new RawStream();
                incoming.add(s);
                ch.pipeline().addLast(s);
            }
        };
        try {
            QuicChannel ch = client.quic().connect(null, brokerStreams)
                    .get(RawStream.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            return new RawConnection(ch, incoming);
        } catch (Exception e) {
            throw new AssertionError("could not connect to the broker: " + e, e);
        }
    }

    QuicChannel channel() {
        return channel;
    }

    boolean isActive() {
        return channel.isActive();
    }

    List<RawStream> incoming() {
        return incoming;
    }

    /** Opens a bidirectional stream; nothing is sent yet (QUIC makes it visible to the broker on first data). */
    RawStream open() {
        return open(QuicStreamType.BIDIRECTIONAL);
    }

    RawStream openUni() {
        return open(QuicStreamType.UNIDIRECTIONAL);
    }

    private RawStream open(QuicStreamType type) {
        RawStream s = new RawStream();
        try {
            channel.createStream(type, s).get(RawStream.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("could not open a " + type + " stream: " + e, e);
        }
        return s;
    }

    /** The {@code auth} message of a client asking for {@code clientFlags} (null: a legacy client). */
    static Message.Auth auth(Integer clientFlags) {
        return new Message.Auth(TENANT, "any-token", clientFlags);
    }

    /** Opens a stream and authenticates it, checking the broker's reply ({@code auth_ok} or {@code ok}). */
    RawStream authenticated(Integer clientFlags) {
        RawStream s = open();
        s.send(auth(clientFlags));
        Message reply = s.frame(0).message();
        if (clientFlags == null) {
            assertThat(reply).isInstanceOf(Message.Ok.class);
        } else {
            assertThat(reply).isInstanceOf(Message.AuthOk.class);
        }
        return s;
    }

    /** Closes the connection cleanly (CONNECTION_CLOSE, application code 0). */
    @Override
    public void close() {
        if (channel.isActive()) {
            channel.close(true, 0, Unpooled.EMPTY_BUFFER).awaitUninterruptibly(RawStream.WAIT.toMillis());
        }
    }

    /** Closes the connection abruptly with an application error, whatever is in flight. */
    void abort(int code, String reason) {
        channel.close(true, code, Unpooled.copiedBuffer(reason, StandardCharsets.UTF_8))
                .awaitUninterruptibly(RawStream.WAIT.toMillis());
    }
}
