package dev.felix.wire;

import static dev.felix.wire.TestSupport.hex;
import static dev.felix.wire.TestSupport.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Encode-once fanout: exact sizes, one-pass header+payload writes from a slice of a payload array. */
class EventBatchEncoderTest {
    static final byte[][] PAYLOADS = {utf8("zero"), utf8("hello"), utf8("world"), new byte[0], utf8("four")};

    static byte[] write(int length, java.util.function.Consumer<ByteBuffer> enc) {
        ByteBuffer dst = ByteBuffer.allocate(length + 3);
        dst.position(3); // not at zero: the encoder writes at the position
        enc.accept(dst);
        assertThat(dst.position()).isEqualTo(length + 3);
        return Arrays.copyOfRange(dst.array(), 3, length + 3);
    }

    @Test
    void sharedFrameFromASliceMatchesTheSpecBytes() {
        int len = EventBatchEncoder.sharedFrameLength(false, PAYLOADS, 1, 2);
        assertThat(len).isEqualTo(12 + 22);
        byte[] frame = write(len, d -> EventBatchEncoder.encodeShared(d, PAYLOADS, 1, 2));
        assertThat(hex(frame)).isEqualTo(hex(hex(
            "464c5831 0001 0004 00000016 | 00000002 | 00000005 68656c6c6f | 00000005 776f726c64")));
    }

    @Test
    void sharedFrameWithOffset() {
        int len = EventBatchEncoder.sharedFrameLength(true, PAYLOADS, 1, 1);
        byte[] frame = write(len, d -> EventBatchEncoder.encodeSharedWithOffset(d, 41, PAYLOADS, 1, 1));
        assertThat(hex(frame)).isEqualTo(hex(hex(
            "464c5831 0001 0024 00000015 | 0000000000000029 | 00000001 | 00000005 68656c6c6f")));
    }

    @Test
    void perSubscriberFrames() {
        int len = EventBatchEncoder.subscriberFrameLength(false, PAYLOADS, 1, 1);
        byte[] frame = write(len, d -> EventBatchEncoder.encodeSubscriber(d, 7, PAYLOADS, 1, 1));
        assertThat(hex(frame)).isEqualTo(hex(hex(
            "464c5831 0001 0002 00000015 | 0000000000000007 | 00000001 | 00000005 68656c6c6f")));
        int len2 = EventBatchEncoder.subscriberFrameLength(true, PAYLOADS, 1, 1);
        byte[] frame2 = write(len2, d -> EventBatchEncoder.encodeSubscriberWithOffset(d, 7, 100, PAYLOADS, 1, 1));
        assertThat(hex(frame2)).isEqualTo(hex(hex(
            "464c5831 0001 0022 0000001d | 0000000000000007 | 0000000000000064 | 00000001 | 00000005 68656c6c6f")));
    }

    @Test
    void everyVariantEqualsTheRecordEncodingAndDecodesBack() throws Exception {
        for (int from = 0; from <= PAYLOADS.length; from++) {
            for (int count = 0; from + count <= PAYLOADS.length; count++) {
                int f = from;
                int c = count;
                List<byte[]> slice = Arrays.asList(PAYLOADS).subList(from, from + count);
                check(EventBatchEncoder.sharedFrameLength(false, PAYLOADS, f, c),
                    d -> EventBatchEncoder.encodeShared(d, PAYLOADS, f, c), new BinarySharedEventBatch(null, slice));
                check(EventBatchEncoder.sharedFrameLength(true, PAYLOADS, f, c),
                    d -> EventBatchEncoder.encodeSharedWithOffset(d, -1L, PAYLOADS, f, c),
                    new BinarySharedEventBatch(-1L, slice));
                check(EventBatchEncoder.subscriberFrameLength(false, PAYLOADS, f, c),
                    d -> EventBatchEncoder.encodeSubscriber(d, 3, PAYLOADS, f, c), new BinaryEventBatch(3, null, slice));
                check(EventBatchEncoder.subscriberFrameLength(true, PAYLOADS, f, c),
                    d -> EventBatchEncoder.encodeSubscriberWithOffset(d, 3, 9, PAYLOADS, f, c),
                    new BinaryEventBatch(3, 9L, slice));
                int[] channels = {5, 70000};
                check(EventBatchEncoder.muxFrameLength(2, PAYLOADS, f, c),
                    d -> EventBatchEncoder.encodeMux(d, channels, 2, 9, PAYLOADS, f, c),
                    new BinaryMuxEventBatch(channels, 9L, slice));
            }
        }
    }

    static void check(int length, java.util.function.Consumer<ByteBuffer> enc, BinaryPayload expected)
        throws WireException {
        byte[] frame = write(length, enc);
        assertThat(frame).isEqualTo(WireCodec.encodeFrame(expected));
        assertThat(WireCodec.decode(WireCodec.readFrame(ByteBuffer.wrap(frame), 1 << 20))).isEqualTo(expected);
    }

    @Test
    void listOverloadsMatchArrayOverloads() {
        List<byte[]> list = List.of(utf8("a"), utf8("bc"));
        byte[][] arr = list.toArray(new byte[0][]);
        assertThat(EventBatchEncoder.sharedFrameLength(true, list)).isEqualTo(EventBatchEncoder.sharedFrameLength(true, arr, 0, 2));
        assertThat(EventBatchEncoder.subscriberFrameLength(false, list))
            .isEqualTo(EventBatchEncoder.subscriberFrameLength(false, arr, 0, 2));
        int l1 = EventBatchEncoder.sharedFrameLength(false, list);
        assertThat(write(l1, d -> EventBatchEncoder.encodeShared(d, list)))
            .isEqualTo(write(l1, d -> EventBatchEncoder.encodeShared(d, arr, 0, 2)));
        int l2 = EventBatchEncoder.sharedFrameLength(true, list);
        assertThat(write(l2, d -> EventBatchEncoder.encodeSharedWithOffset(d, 5, list)))
            .isEqualTo(write(l2, d -> EventBatchEncoder.encodeSharedWithOffset(d, 5, arr, 0, 2)));
        int l3 = EventBatchEncoder.subscriberFrameLength(false, list);
        assertThat(write(l3, d -> EventBatchEncoder.encodeSubscriber(d, 5, list)))
            .isEqualTo(write(l3, d -> EventBatchEncoder.encodeSubscriber(d, 5, arr, 0, 2)));
        int l4 = EventBatchEncoder.subscriberFrameLength(true, list);
        assertThat(write(l4, d -> EventBatchEncoder.encodeSubscriberWithOffset(d, 5, 6, list)))
            .isEqualTo(write(l4, d -> EventBatchEncoder.encodeSubscriberWithOffset(d, 5, 6, arr, 0, 2)));
    }

    @Test
    void oneEncodingIsSharedByManyReaders() throws Exception {
        int len = EventBatchEncoder.sharedFrameLength(true, PAYLOADS, 0, PAYLOADS.length);
        ByteBuffer shared = ByteBuffer.allocateDirect(len);
        EventBatchEncoder.encodeSharedWithOffset(shared, 1000, PAYLOADS, 0, PAYLOADS.length);
        shared.flip();
        for (int subscriber = 0; subscriber < 3; subscriber++) {
            ByteBuffer view = shared.duplicate(); // what a retained duplicate per subscriber sees
            BinarySharedEventBatch b = (BinarySharedEventBatch) WireCodec.decode(WireCodec.readFrame(view, 1 << 20));
            assertThat(b.baseOffset()).isEqualTo(1000L);
            assertThat(b.payloads()).hasSize(5);
        }
        assertThat(shared.position()).isZero();
    }

    @Test
    void bigEndianWhateverTheDestinationOrder() {
        int len = EventBatchEncoder.sharedFrameLength(true, PAYLOADS, 1, 1);
        ByteBuffer le = ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN);
        EventBatchEncoder.encodeSharedWithOffset(le, 41, PAYLOADS, 1, 1);
        assertThat(le.order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
        assertThat(hex(le.array())).startsWith("464c583100010024000000150000000000000029");
    }

    @Test
    void tooSmallDestinationWritesNothing() {
        int len = EventBatchEncoder.sharedFrameLength(false, PAYLOADS, 0, 5);
        ByteBuffer dst = ByteBuffer.allocate(len - 1);
        assertThatThrownBy(() -> EventBatchEncoder.encodeShared(dst, PAYLOADS, 0, 5))
            .isInstanceOf(BufferOverflowException.class);
        assertThat(dst.position()).isZero();
        assertThat(dst.array()).containsOnly(0);
    }

    @Test
    void tooSmallDestinationWritesNoMuxFrame() {
        int len = EventBatchEncoder.muxFrameLength(1, PAYLOADS, 0, 5);
        ByteBuffer dst = ByteBuffer.allocate(len - 1);
        assertThatThrownBy(() -> EventBatchEncoder.encodeMux(dst, new int[] {1}, 1, 0, PAYLOADS, 0, 5))
            .isInstanceOf(BufferOverflowException.class);
        assertThat(dst.position()).isZero();
        assertThat(dst.array()).containsOnly(0);
    }

    @Test
    void badRangesAreRejected() {
        assertThatThrownBy(() -> EventBatchEncoder.sharedFrameLength(false, PAYLOADS, 4, 2))
            .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> EventBatchEncoder.encodeShared(ByteBuffer.allocate(100), PAYLOADS, -1, 1))
            .isInstanceOf(IndexOutOfBoundsException.class);
    }
}
