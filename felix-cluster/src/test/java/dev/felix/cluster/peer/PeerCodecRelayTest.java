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
        assertThat(roundTrip(new PeerMessage.RelayCatchUp("t1/default/prés", 2, 99)))
                .isEqualTo(new PeerMessage.RelayCatchUp("t1/default/prés", 2, 99));
        assertThat(roundTrip(new PeerMessage.RelayCatchUp("t1/default/x", 0, PeerMessage.RelayCatchUp.EARLIEST)))
                .isEqualTo(new PeerMessage.RelayCatchUp("t1/default/x", 0, PeerMessage.RelayCatchUp.EARLIEST));
        assertThat(roundTrip(new PeerMessage.RelayGap(3, 9, "retention")))
                .isEqualTo(new PeerMessage.RelayGap(3, 9, "retention"));
    }

    @Test
    void catchUpsAndGaps_withImpossibleOffsets_areRefused() {
        ByteBuf before = Unpooled.buffer().writeByte(PeerCodec.RELAY_CATCH_UP).writeInt(0).writeLong(-2).writeByte('x');
        assertThatThrownBy(() -> PeerCodec.decode(before)).isInstanceOf(PeerProtocolException.class)
                .hasMessageContaining("from -2");
        ByteBuf backwards = Unpooled.buffer().writeByte(PeerCodec.RELAY_GAP).writeLong(9).writeLong(3).writeByte('r');
        assertThatThrownBy(() -> PeerCodec.decode(backwards)).hasMessageContaining("relay_gap from 9 to 3");
        ByteBuf shortGap = Unpooled.buffer().writeByte(PeerCodec.RELAY_GAP).writeLong(9);
        assertThatThrownBy(() -> PeerCodec.decode(shortGap)).hasMessageContaining("relay_gap frame needs");
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
