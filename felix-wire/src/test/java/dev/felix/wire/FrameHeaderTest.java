package dev.felix.wire;

import static dev.felix.wire.TestSupport.buf;
import static dev.felix.wire.TestSupport.hex;
import static dev.felix.wire.TestSupport.rejects;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The 12-byte header: layout, validation order, bounds, truncation and strict end of stream. */
class FrameHeaderTest {
    static final long MAX = FrameHeader.DEFAULT_MAX_FRAME_BYTES;

    @Test
    void okFrameFromTheSpecIsReadAndWritten() throws Exception {
        byte[] frame = hex("464c5831 0001 0000 0000000d 7b2274797065223a226f6b227d");
        ByteBuffer in = buf(frame);
        FrameHeader h = FrameHeader.read(in, MAX);
        assertThat(h).isEqualTo(new FrameHeader(0, 13));
        assertThat(in.position()).isEqualTo(12);
        assertThat(hex(h.toBytes())).isEqualTo("464c5831" + "0001" + "0000" + "0000000d");
        assertThat(WireCodec.frame(0, TestSupport.utf8("{\"type\":\"ok\"}"))).isEqualTo(frame);
        assertThat(h.frameLength()).isEqualTo(25);
    }

    @Test
    void descriptorConstants() {
        assertThat(FrameHeader.HEADER_LENGTH).isEqualTo(12);
        assertThat(FrameHeader.MAGIC).isEqualTo(0x464C5831);
        assertThat(FrameHeader.MAGIC_OFFSET).isZero();
        assertThat(FrameHeader.VERSION_OFFSET).isEqualTo(4);
        assertThat(FrameHeader.FLAGS_OFFSET).isEqualTo(6);
        assertThat(FrameHeader.LENGTH_OFFSET).isEqualTo(8);
        assertThat(FrameHeader.DEFAULT_MAX_FRAME_BYTES).isEqualTo(16 * 1024 * 1024);
    }

    @Test
    void badMagicIsRejected() {
        rejects(WireError.BAD_MAGIC, () -> FrameHeader.read(buf("464c5832 0001 0000 00000000"), MAX));
        rejects(WireError.BAD_MAGIC, () -> FrameHeader.read(buf("00000000 0001 0000 00000000"), MAX));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2, 0x0100, 0xFFFF})
    void badVersionIsRejected(int version) {
        String v = String.format("%04x", version);
        rejects(WireError.UNSUPPORTED_VERSION, () -> FrameHeader.read(buf("464c5831" + v + "0000 00000000"), MAX));
    }

    @ParameterizedTest
    @ValueSource(ints = {0x0040, 0x0080, 0x0100, 0x0200, 0x0400, 0x0800, 0x1000, 0x2000, 0x4000})
    void everyUnknownFlagBitIsRejected(int bit) {
        String f = String.format("%04x", bit);
        WireException e = rejects(WireError.UNKNOWN_FLAGS,
            () -> FrameHeader.read(buf("464c5831 0001" + f + "00000000"), MAX));
        assertThat(e.getMessage()).contains(String.format("0x%04X", bit));
        // also together with valid bits
        String g = String.format("%04x", bit | 0x0001);
        rejects(WireError.UNKNOWN_FLAGS, () -> FrameHeader.read(buf("464c5831 0001" + g + "00000000"), MAX));
    }

    @Test
    void allKnownFlagBitsPassTheHeaderCheck() throws Exception {
        for (int flags = 0; flags <= FrameFlags.KNOWN; flags++) {
            if (!FrameFlags.isKnown(flags)) {
                continue;
            }
            String f = String.format("%04x", flags);
            assertThat(FrameHeader.read(buf("464c5831 0001" + f + "00000000"), MAX).flags()).isEqualTo(flags);
        }
    }

    @Test
    void validationOrderIsMagicVersionFlagsLength() {
        // everything wrong: magic wins
        rejects(WireError.BAD_MAGIC, () -> FrameHeader.read(buf("ffffffff 0002 ffff ffffffff"), MAX));
        // magic ok, rest wrong: version wins
        rejects(WireError.UNSUPPORTED_VERSION, () -> FrameHeader.read(buf("464c5831 0002 ffff ffffffff"), MAX));
        // magic and version ok: flags win over length
        rejects(WireError.UNKNOWN_FLAGS, () -> FrameHeader.read(buf("464c5831 0001 ffff ffffffff"), MAX));
        rejects(WireError.FRAME_TOO_LARGE, () -> FrameHeader.read(buf("464c5831 0001 003f ffffffff"), MAX));
    }

    @Test
    void lengthCapIsInclusiveAndConfigurable() throws Exception {
        assertThat(FrameHeader.read(buf("464c5831 0001 0000 00000400"), 1024).length()).isEqualTo(1024);
        rejects(WireError.FRAME_TOO_LARGE, () -> FrameHeader.read(buf("464c5831 0001 0000 00000401"), 1024));
        assertThat(FrameHeader.read(buf("464c5831 0001 0000 01000000"), MAX).length()).isEqualTo(16 << 20);
        rejects(WireError.FRAME_TOO_LARGE, () -> FrameHeader.read(buf("464c5831 0001 0000 01000001"), MAX));
        assertThat(FrameHeader.read(buf("464c5831 0001 0000 00000000"), 0).length()).isZero();
        rejects(WireError.FRAME_TOO_LARGE, () -> FrameHeader.read(buf("464c5831 0001 0000 00000001"), 0));
    }

    @Test
    void maxLengthOfFourGibIsRejectedFromTheHeaderAloneWithoutAllocating() {
        // Only the 12 header bytes exist: the reader must refuse before wanting the payload.
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        byte[] header = hex("464c5831 0001 0000 ffffffff");
        rejects(WireError.FRAME_TOO_LARGE, () -> WireCodec.readFrame(buf(header), MAX)); // warm up
        long tid = Thread.currentThread().getId();
        long before = mx.getThreadAllocatedBytes(tid);
        WireException e = rejects(WireError.FRAME_TOO_LARGE, () -> WireCodec.readFrame(buf(header), MAX));
        long allocated = mx.getThreadAllocatedBytes(tid) - before;
        assertThat(e.getMessage()).contains("4294967295");
        assertThat(allocated).as("bytes allocated while rejecting").isLessThan(64 * 1024);
        // even with the largest supported cap
        rejects(WireError.FRAME_TOO_LARGE,
            () -> FrameHeader.read(buf(header), FrameHeader.MAX_SUPPORTED_FRAME_BYTES));
        rejects(WireError.FRAME_TOO_LARGE, () -> FrameHeader.peek(buf(header), MAX));
    }

    @Test
    void truncatedHeaderIsAnErrorForReadAndNeedMoreForPeek() throws Exception {
        byte[] full = hex("464c5831 0001 0000 0000000d");
        for (int n = 0; n < 12; n++) {
            ByteBuffer b = ByteBuffer.wrap(full, 0, n);
            rejects(WireError.TRUNCATED, () -> FrameHeader.read(b, MAX));
            assertThat(b.position()).isZero();
            assertThat(FrameHeader.peek(b, MAX)).isNull();
        }
        // peek judges a bad header as soon as 12 bytes exist, without consuming
        ByteBuffer bad = buf("464c5831 0001 0040 00000000");
        rejects(WireError.UNKNOWN_FLAGS, () -> FrameHeader.peek(bad, MAX));
        ByteBuffer good = buf(full);
        assertThat(FrameHeader.peek(good, MAX)).isEqualTo(new FrameHeader(0, 13));
        assertThat(good.position()).isZero();
    }

    @Test
    void truncatedPayloadIsRejectedAndNothingIsConsumed() {
        ByteBuffer b = buf("464c5831 0001 0000 0000000d 7b2274797065223a226f6b22"); // 12 of 13 payload bytes
        WireException e = rejects(WireError.TRUNCATED, () -> WireCodec.readFrame(b, MAX));
        assertThat(e.getMessage()).contains("13").contains("12");
        assertThat(b.position()).isZero();
    }

    @Test
    void framesBackToBackAreReadInOrderAndPayloadIsASharedSlice() throws Exception {
        byte[] ok = WireCodec.encodeFrame(new Message.Ok());
        byte[] err = WireCodec.encodeFrame(new Message.ErrorMessage("oops"));
        ByteBuffer in = ByteBuffer.allocate(ok.length + err.length).put(ok).put(err).flip();
        Frame f1 = WireCodec.readFrame(in, MAX);
        Frame f2 = WireCodec.readFrame(in, MAX);
        assertThat(WireCodec.decode(f1)).isEqualTo(new Message.Ok());
        assertThat(WireCodec.decode(f2)).isEqualTo(new Message.ErrorMessage("oops"));
        assertThat(f1.payload().array()).as("payload is a slice, not a copy").isSameAs(in.array());
        assertThat(f1.frameLength()).isEqualTo(ok.length);
        WireCodec.checkEndOfStream(in);
    }

    @Test
    void streamEndingInsideAFrameIsAnError() throws Exception {
        WireCodec.checkEndOfStream(ByteBuffer.allocate(0));
        WireException e = rejects(WireError.TRUNCATED, () -> {
            WireCodec.checkEndOfStream(buf("464c58"));
            return null;
        });
        assertThat(e.getMessage()).contains("partial header");
    }

    @Test
    void byteOrderOfTheCallersBufferIsIgnored() throws Exception {
        ByteBuffer le = buf("464c5831 0001 0009 00000029").order(ByteOrder.LITTLE_ENDIAN);
        assertThat(FrameHeader.read(le, MAX)).isEqualTo(new FrameHeader(9, 41));
        ByteBuffer out = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
        new FrameHeader(9, 41).write(out);
        assertThat(hex(out.array())).isEqualTo("464c583100010009" + "00000029");
    }

    @Test
    void readsAtTheBufferPositionNotAtZero() throws Exception {
        ByteBuffer b = buf("ffff 464c5831 0001 0010 0000000b");
        b.position(2);
        assertThat(FrameHeader.read(b, MAX)).isEqualTo(new FrameHeader(0x10, 11));
        assertThat(b.position()).isEqualTo(14);
    }

    @Test
    void programmingErrorsAreUncheckedExceptions() {
        assertThatThrownBy(() -> FrameHeader.read(buf("464c5831 0001 0000 00000000"), -1))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FrameHeader.read(buf("464c5831 0001 0000 00000000"), 1L << 32))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FrameHeader(0x10000, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FrameHeader(0, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FrameHeader.write(ByteBuffer.allocate(11), 0, 0))
            .isInstanceOf(BufferOverflowException.class);
    }
}
