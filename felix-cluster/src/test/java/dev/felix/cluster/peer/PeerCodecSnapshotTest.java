package dev.felix.cluster.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.cluster.ShardKey;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

/** A log cache's snapshot transfer messages survive the codec; parts that claim more than the file are refused. */
class PeerCodecSnapshotTest {

    private static final ShardKey CACHE = ShardKey.cache(0x1234L);

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
    void snapshotFetchesAndParts_roundTrip() throws Exception {
        assertThat(roundTrip(new PeerMessage.SnapshotFetch(CACHE, 4, -1, -1, 0, 1 << 20)))
                .isEqualTo(new PeerMessage.SnapshotFetch(CACHE, 4, -1, -1, 0, 1 << 20));
        assertThat(roundTrip(new PeerMessage.SnapshotFetch(CACHE, 4, 500, 550, 4096, 65536)))
                .isEqualTo(new PeerMessage.SnapshotFetch(CACHE, 4, 500, 550, 4096, 65536));
        PeerMessage.SnapshotPart part = (PeerMessage.SnapshotPart) roundTrip(
                new PeerMessage.SnapshotPart(550, 10, 13, new byte[] {1, 2, 3}));
        assertThat(part.offset()).isEqualTo(550);
        assertThat(part.position()).isEqualTo(10);
        assertThat(part.total()).isEqualTo(13);
        assertThat(part.bytes()).containsExactly(1, 2, 3);
        PeerMessage.SnapshotPart none = (PeerMessage.SnapshotPart) roundTrip(PeerMessage.SnapshotPart.none());
        assertThat(none.offset()).isEqualTo(-1);
        assertThat(none.bytes()).isEmpty();
    }

    @Test
    void partsBeyondTheirFile_andImpossibleFetches_areRefused() {
        ByteBuf past = Unpooled.buffer().writeByte(PeerCodec.SNAPSHOT_PART).writeLong(5).writeLong(10).writeLong(11)
                .writeBytes(new byte[] {1, 2});
        assertThatThrownBy(() -> PeerCodec.decode(past)).isInstanceOf(PeerProtocolException.class)
                .hasMessageContaining("at 10 with 2 bytes of 11");
        ByteBuf overflowing = Unpooled.buffer().writeByte(PeerCodec.SNAPSHOT_PART).writeLong(5)
                .writeLong(Long.MAX_VALUE - 1).writeLong(Long.MAX_VALUE).writeBytes(new byte[] {1, 2});
        assertThatThrownBy(() -> PeerCodec.decode(overflowing)).isInstanceOf(PeerProtocolException.class)
                .hasMessageContaining("with 2 bytes of");
        ByteBuf shortPart = Unpooled.buffer().writeByte(PeerCodec.SNAPSHOT_PART).writeLong(5);
        assertThatThrownBy(() -> PeerCodec.decode(shortPart)).hasMessageContaining("snapshot_part frame needs");
        ByteBuf negative = Unpooled.buffer().writeByte(PeerCodec.SNAPSHOT_FETCH).writeByte(1).writeLong(1).writeInt(0)
                .writeLong(1).writeLong(-1).writeLong(-1).writeLong(-5).writeInt(100);
        assertThatThrownBy(() -> PeerCodec.decode(negative)).hasMessageContaining("position -5");
        ByteBuf noBytes = Unpooled.buffer().writeByte(PeerCodec.SNAPSHOT_FETCH).writeByte(1).writeLong(1).writeInt(0)
                .writeLong(1).writeLong(-1).writeLong(-1).writeLong(0).writeInt(0);
        assertThatThrownBy(() -> PeerCodec.decode(noBytes)).hasMessageContaining("max_bytes 0");
    }
}
