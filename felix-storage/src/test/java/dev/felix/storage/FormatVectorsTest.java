package dev.felix.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The v2 on-disk format, byte for byte against upstream's golden vectors (semantics.md §11.3). */
class FormatVectorsTest {
    private static final HexFormat HEX = HexFormat.of().withUpperCase();

    private static final String SEGMENT_HEADER_VECTOR =
        "464C5347" + "0002" + "0000" + "0000000000000001" + "0000000000000002" + "7A09E5B1" + "00000000";
    private static final String RECORD_VECTOR =
        "00000002" + "0000000000000007" + "0000000000000009" + "C654DE27" + "2402152C" + "6869";

    @Test
    void segmentHeader_encodesGoldenVector() {
        final ByteBuffer buf = new SegmentHeader(1, 2).encode();
        assertThat(HEX.formatHex(buf.array())).isEqualTo(SEGMENT_HEADER_VECTOR);
        assertThat(buf.array()).hasSize(SegmentHeaderDescriptor.LENGTH);
    }

    @Test
    void segmentHeader_decodesGoldenVector() {
        final byte[] bytes = HEX.parseHex(SEGMENT_HEADER_VECTOR);
        assertThat(SegmentHeader.decode(bytes, bytes.length))
            .isEqualTo(new SegmentHeader.Valid(new SegmentHeader(1, 2)));
    }

    @Test
    void record_encodesGoldenVector_intoHeapAndDirectBuffers_fromWhereverItStarts() {
        final PayloadSource hi = PayloadSource.of(List.of("hi".getBytes(StandardCharsets.US_ASCII)));
        final ByteBuffer heap = ByteBuffer.allocate(30);
        new RecordEncoder().encode(heap, 7, 9, hi, 0);
        assertThat(heap.position()).isEqualTo(30);
        assertThat(HEX.formatHex(heap.array())).isEqualTo(RECORD_VECTOR);

        final ByteBuffer direct = ByteBuffer.allocateDirect(64);
        direct.position(5);
        new RecordEncoder().encode(direct, 7, 9, hi, 0);
        assertThat(direct.position()).isEqualTo(35);
        assertThat(direct.limit()).as("left as it was").isEqualTo(64);
        final byte[] copy = new byte[30];
        direct.get(5, copy);
        assertThat(HEX.formatHex(copy)).isEqualTo(RECORD_VECTOR);
    }

    @Test
    void record_decodesGoldenVector() throws IOException {
        final byte[] bytes = HEX.parseHex(RECORD_VECTOR);
        final RecordScanner sc = scanner(bytes, 7);
        assertThat(sc.next(true)).isEqualTo(RecordScanner.Step.RECORD);
        assertThat(sc.offset()).isEqualTo(7);
        assertThat(sc.timestampMicros()).isEqualTo(9);
        assertThat(new String(sc.copyPayload(), StandardCharsets.US_ASCII)).isEqualTo("hi");
        assertThat(sc.next(true)).isEqualTo(RecordScanner.Step.END);
    }

    @Test
    void segmentHeader_checksInDecodeOrder() {
        final byte[] good = HEX.parseHex(SEGMENT_HEADER_VECTOR);
        assertThat(kind(good, 31)).isEqualTo(CorruptionKind.TRUNCATED);
        assertThat(kind(with(good, 0, 0x00), 32)).isEqualTo(CorruptionKind.BAD_MAGIC);
        assertThat(kind(with(good, 5, 0x01), 32)).isEqualTo(CorruptionKind.BAD_VERSION);
        assertThat(kind(with(good, 7, 0x01), 32)).isEqualTo(CorruptionKind.BAD_FLAGS);
        assertThat(kind(with(good, 15, 0x02), 32)).isEqualTo(CorruptionKind.SEGMENT_HEADER_CHECKSUM);
        // reserved bytes are written as 0 but not validated on read
        assertThat(SegmentHeader.decode(with(good, 31, 0x07), 32)).isInstanceOf(SegmentHeader.Valid.class);
    }

    @Test
    void record_headerCrcIsVerifiedBeforeTheLengthIsTrusted() throws IOException {
        // A huge declared length with a wrong header CRC is a header checksum failure, not "too large".
        final byte[] bytes = with(HEX.parseHex(RECORD_VECTOR), 0, 0x7F);
        final RecordScanner sc = scanner(bytes, 7);
        assertThat(sc.next(true)).isEqualTo(RecordScanner.Step.FAULT);
        assertThat(sc.fault()).isEqualTo(CorruptionKind.RECORD_HEADER_CHECKSUM);
        assertThat(sc.position()).isZero();
    }

    @Test
    void record_declaredLengthIsBoundedBeforeAllocation() throws IOException {
        // A valid header declaring 1 GiB against a 1 KiB limit: refused from the header alone.
        final ByteBuffer big = ByteBuffer.allocate(28 + 4);
        big.putInt(1 << 30).putLong(7).putLong(9);
        final java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(big.array(), 0, 20);
        big.putInt((int) crc.getValue()).putInt(0);
        final byte[] bytes = big.array();
        final RecordScanner sc = scanner(bytes, 7);
        assertThat(sc.next(true)).isEqualTo(RecordScanner.Step.FAULT);
        assertThat(sc.fault()).isEqualTo(CorruptionKind.RECORD_TOO_LARGE);
        assertThat(sc.faultClaimedLength()).isEqualTo(1L << 30);
    }

    @Test
    void record_faultsAreReportedInDecodeOrder() throws IOException {
        final byte[] good = HEX.parseHex(RECORD_VECTOR);
        assertThat(fault(java.util.Arrays.copyOf(good, 27), 7)).isEqualTo(CorruptionKind.TRUNCATED);
        assertThat(fault(java.util.Arrays.copyOf(good, 29), 7)).isEqualTo(CorruptionKind.TRUNCATED);
        assertThat(fault(with(good, 29, 0x00), 7)).isEqualTo(CorruptionKind.RECORD_CHECKSUM);
        assertThat(fault(with(good, 25, 0x00), 7)).isEqualTo(CorruptionKind.RECORD_CHECKSUM);
        assertThat(fault(good, 8)).isEqualTo(CorruptionKind.OFFSET_OUT_OF_ORDER);
    }

    private static CorruptionKind fault(final byte[] bytes, final long expected) throws IOException {
        final RecordScanner sc = scanner(bytes, expected);
        assertThat(sc.next(true)).isEqualTo(RecordScanner.Step.FAULT);
        return sc.fault();
    }

    private static RecordScanner scanner(final byte[] bytes, final long expected) {
        return new RecordScanner((dst, pos) -> {
            if (pos >= bytes.length) {
                return -1;
            }
            final int n = (int) Math.min(dst.remaining(), bytes.length - pos);
            dst.put(bytes, (int) pos, n);
            return n;
        }, 0, bytes.length, expected, 1024, 4096);
    }

    private static CorruptionKind kind(final byte[] bytes, final int available) {
        return ((SegmentHeader.Invalid) SegmentHeader.decode(bytes, available)).kind();
    }

    private static byte[] with(final byte[] bytes, final int index, final int value) {
        final byte[] copy = bytes.clone();
        copy[index] = (byte) value;
        return copy;
    }
}
