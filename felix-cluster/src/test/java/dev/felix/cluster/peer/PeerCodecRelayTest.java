package dev.felix.cluster.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

/** The relay's peer messages survive the codec, and frames that lie about their contents are refused. */
class PeerCodecRelayTest {

    private static PeerMessage roundTrip(PeerMessage m) throws PeerProtocolException {
        ByteBuf frame = PeerCodec.encode(UnpooledByteBufAllocator.DEFAULT, m);
        try {
            assertThat(frame.readInt()).isEqualTo(frame.readableBytes());
            return PeerCodec.decode(frame);
        } finally {
            frame.release();
        }
    }

    @Test
    void relayMessages_roundTrip() throws Exception {
        assertThat(roundTrip(new PeerMessage.RelaySubscribe("t1/default/prés", 3)))
                .isEqualTo(new PeerMessage.RelaySubscribe("t1/default/prés", 3));
        assertThat(roundTrip(new PeerMessage.RelayStarted(42, 3))).isEqualTo(new PeerMessage.RelayStarted(42, 3));
        PeerMessage.RelayEvents events = (PeerMessage.RelayEvents) roundTrip(
                new PeerMessage.RelayEvents(7, new byte[][] {{1, 2}, {}, {3}}));
        assertThat(events.baseOffset()).isEqualTo(7);
        assertThat(events.payloads()).isDeepEqualTo(new byte[][] {{1, 2}, {}, {3}});
    }

    @Test
    void relayEvents_thatDeclareMoreThanTheFrameHolds_areRefusedBeforeAllocating() {
        ByteBuf huge = Unpooled.buffer().writeByte(PeerCodec.RELAY_EVENTS).writeLong(0).writeInt(Integer.MAX_VALUE);
        assertThatThrownBy(() -> PeerCodec.decode(huge)).isInstanceOf(PeerProtocolException.class)
                .hasMessageContaining("declares 2147483647 events");
        ByteBuf longEvent = Unpooled.buffer().writeByte(PeerCodec.RELAY_EVENTS).writeLong(0).writeInt(1).writeInt(99);
        assertThatThrownBy(() -> PeerCodec.decode(longEvent)).hasMessageContaining("declares 99 bytes");
        ByteBuf trailing = Unpooled.buffer().writeByte(PeerCodec.RELAY_EVENTS).writeLong(0).writeInt(1).writeInt(0)
                .writeByte(1);
        assertThatThrownBy(() -> PeerCodec.decode(trailing)).hasMessageContaining("past its last event");
        ByteBuf negative = Unpooled.buffer().writeByte(PeerCodec.RELAY_SUBSCRIBE).writeInt(-1).writeByte('x');
        assertThatThrownBy(() -> PeerCodec.decode(negative)).hasMessageContaining("shard -1");
    }
}
