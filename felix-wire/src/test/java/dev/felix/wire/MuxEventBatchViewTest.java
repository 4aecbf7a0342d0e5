package dev.felix.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * {@link MuxEventBatchView} finds every part of a mux event batch where it lies in the buffer, without copying:
 * one view wrapped around frame after frame of every size (its arrays grow and it reports only the current frame),
 * inside a larger buffer at any position; a frame it refuses leaves it reporting nothing, and it reads the next one.
 */
class MuxEventBatchViewTest {

    /** One view for every try, as the SDK keeps one per session for every frame. */
    private static final MuxEventBatchView VIEW = new MuxEventBatchView();

    @Provide
    Arbitrary<int[]> channels() {
        return Arbitraries.integers().between(0, Integer.MAX_VALUE).array(int[].class).ofMinSize(1).ofMaxSize(40);
    }

    @Provide
    Arbitrary<List<byte[]>> payloads() {
        return WireArbitraries.payload().list().ofMaxSize(80);
    }

    @Property(tries = 400, seed = TestSupport.SEED)
    void findsEveryPartInPlace(@ForAll("channels") int[] channels, @ForAll long baseOffset,
            @ForAll("payloads") List<byte[]> payloads, @ForAll @IntRange(max = 100) int before) throws Exception {
        BinaryMuxEventBatch batch = new BinaryMuxEventBatch(channels, baseOffset, payloads);
        ByteBuffer payload = framePayloadAt(batch, before);

        VIEW.wrap(payload);

        assertThat(VIEW.buffer()).isSameAs(payload);
        assertThat(VIEW.channelCount()).isEqualTo(channels.length);
        for (int i = 0; i < channels.length; i++) {
            assertThat(VIEW.channel(i)).isEqualTo(channels[i]);
        }
        assertThat(VIEW.baseOffset()).isEqualTo(baseOffset);
        assertThat(VIEW.eventCount()).isEqualTo(payloads.size());
        for (int i = 0; i < payloads.size(); i++) {
            int start = VIEW.payloadStart(i);
            assertThat(start).as("inside the frame's payload").isBetween(payload.position(), payload.limit());
            byte[] here = new byte[VIEW.payloadLength(i)];
            payload.get(start, here);
            assertThat(here).as("payload %d read in place", i).isEqualTo(payloads.get(i));
        }
        assertThat(VIEW.copyPayloads()).containsExactlyElementsOf(payloads);
        assertThat(VIEW.toBatch()).isEqualTo(batch);
        assertThat(payload.position()).as("wrap moves nothing").isEqualTo(before + FrameHeader.HEADER_LENGTH);
    }

    @Property(tries = 300, seed = TestSupport.SEED)
    void aFrameCutShortIsRefused_theViewThenReportsNothing_andReadsTheNextFrame(
            @ForAll("channels") int[] channels, @ForAll("payloads") List<byte[]> payloads,
            @ForAll @IntRange(min = 1, max = 1_000_000) int cut) throws Exception {
        BinaryMuxEventBatch batch = new BinaryMuxEventBatch(channels, 7, payloads);
        ByteBuffer whole = framePayloadAt(batch, 3);
        ByteBuffer shortened = whole.duplicate();
        shortened.limit(whole.limit() - Math.min(cut, whole.remaining()));

        VIEW.wrap(framePayloadAt(new BinaryMuxEventBatch(new int[] {1}, 0, List.of(new byte[] {1, 2})), 0));
        assertThatThrownBy(() -> VIEW.wrap(shortened)).isInstanceOf(WireException.class)
                .satisfies(e -> assertThat(((WireException) e).error()).isIn(WireError.TRUNCATED,
                        WireError.COUNT_TOO_LARGE, WireError.TRAILING_BYTES))
                .hasMessage(decodeFailure(shortened));
        assertThat(VIEW.buffer()).isNull();
        assertThat(VIEW.channelCount()).isZero();
        assertThat(VIEW.eventCount()).isZero();

        VIEW.wrap(whole);
        assertThat(VIEW.toBatch()).isEqualTo(batch);
    }

    @Test
    void refusesWhatTheDecoderRefuses_withItsMessage() {
        // channel_count 0
        ByteBuffer none = ByteBuffer.wrap(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        assertThatThrownBy(() -> VIEW.wrap(none)).isInstanceOf(WireException.class)
                .hasMessage("mux event batch: channel_count is 0 at offset 0");
        // one channel, base 0, count 5 in 4 remaining bytes: refused before anything is sized by it
        ByteBuffer tooMany = ByteBuffer.allocate(2 + 4 + 8 + 4 + 4).putShort((short) 1).putInt(9).putLong(0)
                .putInt(5).putInt(0).flip();
        assertThatThrownBy(() -> VIEW.wrap(tooMany)).isInstanceOf(WireException.class)
                .satisfies(e -> assertThat(((WireException) e).error()).isEqualTo(WireError.COUNT_TOO_LARGE));
    }

    /** The frame's payload (after its header) inside a larger direct buffer, {@code before} bytes in. */
    private static ByteBuffer framePayloadAt(BinaryMuxEventBatch batch, int before) {
        byte[] frame = WireCodec.encodeFrame(batch);
        ByteBuffer b = ByteBuffer.allocateDirect(before + frame.length + 17);
        b.position(before).put(frame);
        return b.limit(before + frame.length).position(before + FrameHeader.HEADER_LENGTH);
    }

    /** What the value decoder says of {@code payload}. */
    private static String decodeFailure(ByteBuffer payload) {
        try {
            WireCodec.decodePayload(batchFlags(), payload.duplicate());
            return "decoded";
        } catch (WireException e) {
            return e.getMessage();
        }
    }

    private static int batchFlags() {
        return FrameFlags.MUX_DELIVERY | FrameFlags.BINARY_EVENT_BATCH_SHARED | FrameFlags.EVENT_BATCH_OFFSETS;
    }
}
