package dev.felix.wire;

import static dev.felix.wire.TestSupport.buf;
import static dev.felix.wire.TestSupport.hex;
import static dev.felix.wire.TestSupport.rejects;
import static dev.felix.wire.TestSupport.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Binary layouts of wire.md §5 the vectors do not cover (unacked batches, every event batch flag
 * combination), with expected bytes written by hand from the layout tables, and every rejection.
 */
class BinaryPayloadsTest {
    static final byte[] HELLO = utf8("hello");
    static final byte[] WORLD = utf8("world");
    /** "t1" / "default" / "demo" as str16. */
    static final String NAMES = "0002 7431 | 0007 64656661756c74 | 0004 64656d6f";

    /** encodeFrame(p) == header(flags, len) + payload, and decoding the payload gives p back. */
    static void canonical(BinaryPayload p, int flags, String payloadHex) throws WireException {
        byte[] payload = hex(payloadHex);
        String header = "464c5831 0001" + String.format("%04x", flags) + String.format("%08x", payload.length);
        assertThat(hex(WireCodec.encodeFrame(p))).isEqualTo(hex(hex(header)) + hex(payload));
        assertThat(WireCodec.frameLength(p)).isEqualTo(12 + payload.length);
        assertThat(p.frameFlags()).isEqualTo(flags);
        assertThat(WireCodec.decodeBinary(flags, buf(payload))).isEqualTo(p);
        assertThat(WireCodec.decode(WireCodec.readFrame(buf(WireCodec.encodeFrame(p)), 1 << 20))).isEqualTo(p);
    }

    // ------------------------------------------------------------------ 0x0001

    @Test
    void unackedPublishBatch() throws Exception {
        canonical(new BinaryPublishBatch("t1", "default", "demo", List.of(HELLO)), 0x0001,
            NAMES + "| 00000001 | 00000005 68656c6c6f");
        assertThat(hex(WireCodec.encodeFrame(new BinaryPublishBatch("t1", "default", "demo", List.of(HELLO)))))
            .startsWith("464c58310001000100000020");
    }

    @Test
    void emptyBatchAndEmptyPayloadsAndEmptyNames() throws Exception {
        canonical(new BinaryPublishBatch("t1", "", "", List.of()), 0x0001, "0002 7431 | 0000 | 0000 | 00000000");
        canonical(new BinaryPublishBatch("a", "b", "c", List.of(new byte[0], new byte[] {(byte) 0xFF}, hex("0001"))),
            0x0001, "0001 61 | 0001 62 | 0001 63 | 00000003 | 00000000 | 00000001 ff | 00000002 0001");
        canonical(new BinaryPublishBatch("té", "名前", "😀", List.of(HELLO)), 0x0001,
            "0003 74c3a9 | 0006 e5908de5898d | 0004 f09f9880 | 00000001 00000005 68656c6c6f");
    }

    @Test
    void publishBatchCountIsBoundedBeforeAllocating() {
        // count 3 but only 8 bytes follow: 3 > 8/4
        WireException e = rejects(WireError.COUNT_TOO_LARGE,
            () -> WireCodec.decodePublishBatch(buf(NAMES + "00000003 00000001 61 000000")));
        assertThat(e.getMessage()).contains("count 3").contains("8 bytes");
        rejects(WireError.COUNT_TOO_LARGE, () -> WireCodec.decodePublishBatch(buf(NAMES + "ffffffff")));
        rejects(WireError.COUNT_TOO_LARGE, () -> WireCodec.decodePublishBatch(buf(NAMES + "00000001")));
        rejects(WireError.COUNT_TOO_LARGE, () -> WireCodec.decodePublishBatch(buf(NAMES + "00000001 000000")));
        rejects(WireError.COUNT_TOO_LARGE, () -> WireCodec.decodePublishBatch(buf(NAMES + "80000000 00000000")));
    }

    @Test
    void countExactlyAtTheBoundIsAccepted() throws Exception {
        assertThat(WireCodec.decodePublishBatch(buf(NAMES + "00000002 00000000 00000000")).payloads())
            .hasSize(2).allSatisfy(p -> assertThat(p).isEmpty());
    }

    @Test
    void publishBatchTruncations() {
        for (String h : new String[] {"", "00", "0002 74", "0002 7431 0007 6465", NAMES, NAMES + "000000",
            NAMES + "00000001 00000005 68656c6c",
            NAMES + "00000002 00000001 61 000000"}) {
            rejects(WireError.TRUNCATED, () -> WireCodec.decodePublishBatch(buf(h)));
        }
        WireException e = rejects(WireError.TRUNCATED,
            () -> WireCodec.decodePublishBatch(buf(NAMES + "00000001 00000006 68656c6c6f")));
        assertThat(e.getMessage()).contains("payloads[0]").contains("declares 6");
    }

    @Test
    void publishBatchTrailingBytesAreRejected() {
        WireException e = rejects(WireError.TRAILING_BYTES,
            () -> WireCodec.decodePublishBatch(buf(NAMES + "00000001 00000005 68656c6c6f 00")));
        assertThat(e.getMessage()).contains("1 unexpected bytes").contains("offset 32");
        rejects(WireError.TRAILING_BYTES, () -> WireCodec.decodePublishBatch(buf(NAMES + "00000000 deadbeef")));
    }

    @Test
    void publishBatchNamesMustBeUtf8() {
        WireException e = rejects(WireError.BAD_UTF8,
            () -> WireCodec.decodePublishBatch(buf("0002 74ff | 0000 | 0000 | 00000000")));
        assertThat(e.getMessage()).contains("tenant_id");
        rejects(WireError.BAD_UTF8, () -> WireCodec.decodePublishBatch(buf("0000 | 0002 c0af | 0000 | 00000000")));
        rejects(WireError.BAD_UTF8, () -> WireCodec.decodePublishBatch(buf("0000 | 0000 | 0003 eda080 | 00000000")));
    }

    // ------------------------------------------------------------------ 0x0009

    @Test
    void ackedPublishBatchPerMessage() throws Exception {
        canonical(new BinaryAckedPublishBatch(-1L, AckMode.PER_MESSAGE,
                new BinaryPublishBatch("t1", "default", "demo", List.of(HELLO, WORLD))), 0x0009,
            "ffffffffffffffff | 01 | " + NAMES + "| 00000002 | 00000005 68656c6c6f | 00000005 776f726c64");
    }

    @Test
    void ackedPrefixIsDecodableWhenTheBodyIsNot() throws Exception {
        ByteBuffer bad = buf("0000000000000007 02 | 0002 74");
        assertThat(WireCodec.decodeAckedPublishPrefix(bad)).isEqualTo(new AckedPublishPrefix(7, AckMode.PER_BATCH));
        assertThat(bad.position()).isZero();
        rejects(WireError.TRUNCATED, () -> WireCodec.decodeAckedPublishBatch(bad));
        ByteBuffer countBomb = buf("0000000000000009 01" + NAMES + "ffffffff");
        assertThat(WireCodec.decodeAckedPublishPrefix(countBomb).requestId()).isEqualTo(9);
        rejects(WireError.COUNT_TOO_LARGE, () -> WireCodec.decodeAckedPublishBatch(countBomb));
        ByteBuffer trailing = buf("0000000000000009 01" + NAMES + "00000000 00");
        assertThat(WireCodec.decodeAckedPublishPrefix(trailing).ackMode()).isEqualTo(AckMode.PER_MESSAGE);
        rejects(WireError.TRAILING_BYTES, () -> WireCodec.decodeAckedPublishBatch(trailing));
    }

    @Test
    void ackedPrefixTruncatedOrWithABadAckMode() {
        for (int n = 0; n < 9; n++) {
            ByteBuffer b = ByteBuffer.wrap(hex("0000000000000007 02"), 0, n);
            rejects(WireError.TRUNCATED, () -> WireCodec.decodeAckedPublishPrefix(b));
            rejects(WireError.TRUNCATED, () -> WireCodec.decodeAckedPublishBatch(b));
        }
        for (String mode : new String[] {"00", "03", "80", "ff"}) {
            WireException e = rejects(WireError.BAD_ACK_MODE,
                () -> WireCodec.decodeAckedPublishPrefix(buf("0000000000000007" + mode + NAMES + "00000000")));
            assertThat(e.getMessage()).contains("ack_mode " + Integer.parseInt(mode, 16));
            rejects(WireError.BAD_ACK_MODE,
                () -> WireCodec.decodeAckedPublishBatch(buf("0000000000000007" + mode + NAMES + "00000000")));
        }
    }

    @Test
    void ackModeNoneHasNoBinaryForm() {
        assertThatThrownBy(() -> new AckedPublishPrefix(1, AckMode.NONE)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BinaryAckedPublishBatch(1, AckMode.NONE,
            new BinaryPublishBatch("t", "n", "s", List.of()))).isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------ 0x0010

    @Test
    void publishAcks() throws Exception {
        canonical(BinaryPublishAck.ok(-1L), 0x0010, "00 ffffffffffffffff 0000");
        canonical(BinaryPublishAck.error(9, "stream not found"), 0x0010,
            "01 0000000000000009 0010 73747265616d206e6f7420666f756e64");
        canonical(BinaryPublishAck.error(1, ""), 0x0010, "01 0000000000000001 0000");
        canonical(BinaryPublishAck.error(2, "é"), 0x0010, "01 0000000000000002 0002 c3a9");
    }

    @Test
    void okAckDiscardsMessageBytesUnchecked() throws Exception {
        assertThat(WireCodec.decodePublishAck(buf("00 0000000000000007 0002 ffff"))).isEqualTo(BinaryPublishAck.ok(7));
    }

    @Test
    void publishAckRejections() {
        rejects(WireError.BAD_FIELD, () -> WireCodec.decodePublishAck(buf("02 0000000000000007 0000")));
        rejects(WireError.BAD_FIELD, () -> WireCodec.decodePublishAck(buf("ff 0000000000000007 0000")));
        for (int n = 0; n < 11; n++) {
            ByteBuffer b = ByteBuffer.wrap(hex("00 0000000000000007 0000"), 0, n);
            rejects(WireError.TRUNCATED, () -> WireCodec.decodePublishAck(b));
        }
        rejects(WireError.TRUNCATED, () -> WireCodec.decodePublishAck(buf("01 0000000000000009 0010 7374")));
        rejects(WireError.TRUNCATED, () -> WireCodec.decodePublishAck(buf("00 0000000000000009 0001")));
        rejects(WireError.TRAILING_BYTES, () -> WireCodec.decodePublishAck(buf("00 0000000000000007 0000 00")));
        rejects(WireError.TRAILING_BYTES, () -> WireCodec.decodePublishAck(buf("01 0000000000000007 0001 61 62")));
        rejects(WireError.BAD_UTF8, () -> WireCodec.decodePublishAck(buf("01 0000000000000007 0002 c0af")));
    }

    @Test
    void errorTextIsTruncatedTo512BytesOnACharacterBoundary() throws Exception {
        String ascii = "a".repeat(600);
        assertThat(roundTripAckMessage(ascii)).isEqualTo("a".repeat(512));
        String euro = "€".repeat(200); // 3 bytes each: 170 whole characters = 510 bytes fit
        assertThat(roundTripAckMessage(euro)).isEqualTo("€".repeat(170));
        String mixed = "a" + "😀".repeat(200); // 1 + 4k bytes: 1 + 127*4 = 509 fit
        assertThat(roundTripAckMessage(mixed)).isEqualTo("a" + "😀".repeat(127));
        String exact = "é".repeat(256); // exactly 512 bytes: kept whole
        assertThat(roundTripAckMessage(exact)).isEqualTo(exact);
        assertThat(WireCodec.frameLength(BinaryPublishAck.error(1, ascii))).isEqualTo(12 + 11 + 512);
    }

    static String roundTripAckMessage(String message) throws WireException {
        byte[] frame = WireCodec.encodeFrame(BinaryPublishAck.error(1, message));
        String got = WireCodec.decodePublishAck(ByteBuffer.wrap(frame, 12, frame.length - 12).slice()).message();
        assertThat(got.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(512);
        assertThat(message).startsWith(got);
        return got;
    }

    @Test
    void ackRecordInvariants() {
        assertThatThrownBy(() -> new BinaryPublishAck(BinaryPublishAck.Status.OK, 1, "x"))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BinaryPublishAck(BinaryPublishAck.Status.ERROR, 1, null))
            .isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------ 0x0029 / 0x0030 (extension)

    @Test
    void routedPublishBatchesNameAKeyAShardOrNeither() throws Exception {
        BinaryPublishBatch body = new BinaryPublishBatch("t1", "default", "demo", List.of(HELLO));
        String bodyHex = "0002 7431 | 0007 64656661756c74 | 0004 64656d6f | 00000001 | 00000005 68656c6c6f";
        canonical(new BinaryRoutedPublishBatch(7, AckMode.PER_BATCH, "k", null, body), 0x0029,
            "0000000000000007 02 01 0001 6b | " + bodyHex);
        canonical(new BinaryRoutedPublishBatch(7, AckMode.PER_MESSAGE, null, -1, body), 0x0029,
            "0000000000000007 01 02 ffffffff | " + bodyHex);
        canonical(new BinaryRoutedPublishBatch(7, AckMode.PER_MESSAGE, null, null, body), 0x0029,
            "0000000000000007 01 00 | " + bodyHex);
        // the prefix is the 0x0009 one: a broker reads it alone to answer a body it cannot read
        assertThat(WireCodec.decodeAckedPublishPrefix(buf("0000000000000007 02 07 ff")))
            .isEqualTo(new AckedPublishPrefix(7, AckMode.PER_BATCH));
    }

    @Test
    void routedPublishBatchRejections() {
        String bodyHex = "0002 7431 0007 64656661756c74 0004 64656d6f 00000000";
        rejects(WireError.BAD_FIELD, () -> WireCodec.decodeRoutedPublishBatch(buf("0000000000000007 02 03 " + bodyHex)));
        rejects(WireError.BAD_ACK_MODE, () -> WireCodec.decodeRoutedPublishBatch(buf("0000000000000007 00 00 " + bodyHex)));
        rejects(WireError.TRUNCATED, () -> WireCodec.decodeRoutedPublishBatch(buf("0000000000000007 02 01 0005 6b")));
        rejects(WireError.TRUNCATED, () -> WireCodec.decodeRoutedPublishBatch(buf("0000000000000007 02 02 0000")));
        rejects(WireError.TRAILING_BYTES, () -> WireCodec.decodeRoutedPublishBatch(buf("0000000000000007 02 00 "
            + bodyHex + " 00")));
        assertThatThrownBy(() -> new BinaryRoutedPublishBatch(1, AckMode.PER_BATCH, "k", 1,
            new BinaryPublishBatch("t", "n", "s", List.of()))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BinaryRoutedPublishBatch(1, AckMode.NONE, null, null,
            new BinaryPublishBatch("t", "n", "s", List.of()))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void publishResultsCarryOffsetsOrACodedError() throws Exception {
        canonical(BinaryPublishResult.ok(7, 100, 2, 1), 0x0030,
            "00 0000000000000007 0000000000000064 00000002 00000001");
        canonical(BinaryPublishResult.ok(-1L, -1L, -1, -1), 0x0030,
            "00 ffffffffffffffff ffffffffffffffff ffffffff ffffffff");
        canonical(BinaryPublishResult.error(9, "not_found", "stream not found"), 0x0030,
            "01 0000000000000009 09 6e6f745f666f756e64 0010 73747265616d206e6f7420666f756e64");
        canonical(BinaryPublishResult.error(2, "too_large", "é"), 0x0030,
            "01 0000000000000002 09 746f6f5f6c61726765 0002 c3a9");
        // nothing is cut: 64 KiB of text is the limit, beyond it the broker answers in JSON
        assertThat(BinaryPublishResult.canCarry("internal", "a".repeat(0xFFFF))).isTrue();
        assertThat(BinaryPublishResult.canCarry("internal", "a".repeat(0x10000))).isFalse();
        assertThatThrownBy(() -> BinaryPublishResult.error(1, "internal", "a".repeat(0x10000)))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BinaryPublishResult.error(1, "", "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BinaryPublishResult(1, 0, 0, 0, "x", null))
            .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void publishResultRejections() {
        rejects(WireError.BAD_FIELD, () -> WireCodec.decodePublishResult(buf("02 0000000000000007")));
        rejects(WireError.BAD_FIELD, () -> WireCodec.decodePublishResult(buf("01 0000000000000007 00 0000")));
        rejects(WireError.TRUNCATED, () -> WireCodec.decodePublishResult(buf("00 0000000000000007 00000000")));
        rejects(WireError.TRUNCATED, () -> WireCodec.decodePublishResult(buf("01 0000000000000007 05 6e6f")));
        rejects(WireError.TRAILING_BYTES, () -> WireCodec.decodePublishResult(buf(
            "00 0000000000000007 0000000000000064 00000002 00000001 00")));
        rejects(WireError.BAD_UTF8, () -> WireCodec.decodePublishResult(buf("01 0000000000000007 01 61 0002 c0af")));
        rejects(WireError.BAD_FLAG_COMBINATION, () -> PayloadKind.of(0x0030, Direction.CLIENT_TO_BROKER));
        rejects(WireError.BAD_FLAG_COMBINATION, () -> PayloadKind.of(0x0029, Direction.BROKER_TO_CLIENT));
    }

    // ------------------------------------------------------------------ 0x0026 watch changes (extension)

    @Test
    void watchChangesCarryEveryOpWithAndWithoutValueAndExpiry() throws Exception {
        canonical(BinaryWatchChanges.of(new Message.WatchChange(17, "k", Message.WatchChange.OP_PUT, utf8("hi"), null)),
            0x0026, "00000001 | 0000000000000011 00 01 | 0001 6b | 00000002 6869");
        canonical(BinaryWatchChanges.of(new Message.WatchChange(-1L, "k", Message.WatchChange.OP_PUT, new byte[0],
            1700000060000L)), 0x0026, "00000001 | ffffffffffffffff 00 03 | 0001 6b | 00000000 | 0000018bcfe65260");
        canonical(new BinaryWatchChanges(List.of(
                new Message.WatchChange(18, "é", Message.WatchChange.OP_DELETE, null, null),
                new Message.WatchChange(19, "", Message.WatchChange.OP_EXPIRE, null, null),
                new Message.WatchChange(20, "z", Message.WatchChange.OP_EVICT, null, null))), 0x0026,
            "00000003 | 0000000000000012 01 00 0002 c3a9 | 0000000000000013 02 00 0000 | 0000000000000014 03 00 0001 7a");
        // an op without a binary code is not carried: the broker sends that change as JSON
        Message.WatchChange future = new Message.WatchChange(1, "k", "archive", null, null);
        assertThat(BinaryWatchChanges.canCarry(future)).isFalse();
        assertThatThrownBy(() -> BinaryWatchChanges.of(future)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("archive");
        assertThatThrownBy(() -> new BinaryWatchChanges(List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void watchChangeRejections() {
        String put = "0000000000000011 00 01 0001 6b 00000002 6869";
        rejects(WireError.BAD_FIELD, () -> WireCodec.decodeWatchChanges(buf("00000000")));
        rejects(WireError.TRUNCATED, () -> WireCodec.decodeWatchChanges(buf("000000")));
        // the count is bounded by the bytes that remain before the list is allocated
        WireException e = rejects(WireError.COUNT_TOO_LARGE, () -> WireCodec.decodeWatchChanges(buf("7fffffff " + put)));
        assertThat(e.getMessage()).contains("count 2147483647");
        rejects(WireError.COUNT_TOO_LARGE, () -> WireCodec.decodeWatchChanges(buf("00000002 " + put)));
        rejects(WireError.BAD_FIELD, () -> WireCodec.decodeWatchChanges(buf("00000001 0000000000000011 04 00 0001 6b")));
        rejects(WireError.BAD_FIELD, () -> WireCodec.decodeWatchChanges(buf("00000001 0000000000000011 01 04 0001 6b")));
        // a value declaring more bytes than remain is refused before it is allocated
        e = rejects(WireError.TRUNCATED, () -> WireCodec.decodeWatchChanges(buf(
            "00000001 0000000000000011 00 01 0001 6b ffffffff 6869")));
        assertThat(e.getMessage()).contains("declares 4294967295 bytes");
        rejects(WireError.TRUNCATED, () -> WireCodec.decodeWatchChanges(buf("00000001 0000000000000011 00 03 0001 6b 00000000 0000")));
        rejects(WireError.TRUNCATED, () -> WireCodec.decodeWatchChanges(buf("00000001 0000000000000011 00 00 0009 6b 00")));
        rejects(WireError.BAD_UTF8, () -> WireCodec.decodeWatchChanges(buf("00000001 0000000000000011 01 00 0002 c0af")));
        rejects(WireError.TRAILING_BYTES, () -> WireCodec.decodeWatchChanges(buf("00000001 " + put + " 00")));
        rejects(WireError.BAD_FLAG_COMBINATION, () -> PayloadKind.of(0x0026, Direction.CLIENT_TO_BROKER));
    }

    // ------------------------------------------------------------------ event batches

    @Test
    void perSubscriberEventBatchWithAndWithoutOffset() throws Exception {
        canonical(new BinaryEventBatch(7, null, List.of(HELLO)), 0x0002,
            "0000000000000007 | 00000001 | 00000005 68656c6c6f");
        canonical(new BinaryEventBatch(7, 100L, List.of(HELLO)), 0x0022,
            "0000000000000007 | 0000000000000064 | 00000001 | 00000005 68656c6c6f");
        canonical(new BinaryEventBatch(-1L, Long.MIN_VALUE, List.of()), 0x0022,
            "ffffffffffffffff | 8000000000000000 | 00000000");
    }

    @Test
    void sharedEventBatchWithAndWithoutOffset() throws Exception {
        canonical(new BinarySharedEventBatch(null, List.of(HELLO, WORLD)), 0x0004,
            "00000002 | 00000005 68656c6c6f | 00000005 776f726c64");
        canonical(new BinarySharedEventBatch(-1L, List.of(HELLO)), 0x0024,
            "ffffffffffffffff | 00000001 | 00000005 68656c6c6f");
        canonical(new BinarySharedEventBatch(null, List.of()), 0x0004, "00000000");
        canonical(new BinarySharedEventBatch(0L, List.of(new byte[0])), 0x0024, "0000000000000000 00000001 00000000");
    }

    @Test
    void eventBatchRejections() {
        rejects(WireError.TRUNCATED, () -> WireCodec.decodeEventBatch(0x0002, buf("00000000000000")));
        rejects(WireError.TRUNCATED, () -> WireCodec.decodeEventBatch(0x0022, buf("0000000000000007 00000001")));
        rejects(WireError.COUNT_TOO_LARGE, () -> WireCodec.decodeEventBatch(0x0002, buf("0000000000000007 00000002 00000000")));
        rejects(WireError.TRAILING_BYTES, () -> WireCodec.decodeEventBatch(0x0002, buf("0000000000000007 00000000 00")));
        rejects(WireError.TRUNCATED, () -> WireCodec.decodeSharedEventBatch(0x0024, buf("00000000000000")));
        rejects(WireError.COUNT_TOO_LARGE, () -> WireCodec.decodeSharedEventBatch(0x0004, buf("ffffffff 00000000")));
        rejects(WireError.TRAILING_BYTES, () -> WireCodec.decodeSharedEventBatch(0x0004, buf("00000000 01")));
        rejects(WireError.TRUNCATED, () -> WireCodec.decodeSharedEventBatch(0x0004, buf("00000001 00000002 61")));
        // a layout's decoder only accepts its own flags
        rejects(WireError.BAD_FLAG_COMBINATION, () -> WireCodec.decodeEventBatch(0x0004, buf("00000000")));
        rejects(WireError.BAD_FLAG_COMBINATION, () -> WireCodec.decodeSharedEventBatch(0x0022, buf("00000000")));
        rejects(WireError.BAD_FLAG_COMBINATION, () -> WireCodec.decodeSharedEventBatch(0x0020, buf("00000000")));
    }

    @Test
    void offsetsFlagChangesHowTheSameBytesAreRead() throws Exception {
        // 0x0004 vs 0x0024 over identical bytes: the first 8 bytes are count+blob or base_offset
        byte[] b = hex("00000001 00000000 | 00000000");
        assertThat(WireCodec.decodeSharedEventBatch(0x0024, buf(b)))
            .isEqualTo(new BinarySharedEventBatch(1L << 32, List.of()));
        rejects(WireError.TRAILING_BYTES, () -> WireCodec.decodeSharedEventBatch(0x0004, buf(b)));
    }

    // ------------------------------------------------------------------ dispatch and encoding contracts

    @Test
    void decodeBinaryDispatchesOnFlags() throws Exception {
        rejects(WireError.BAD_FLAG_COMBINATION, () -> WireCodec.decodeBinary(0, buf("")));
        rejects(WireError.BAD_FLAG_COMBINATION, () -> WireCodec.decodeBinary(0x0003, buf("")));
        rejects(WireError.BAD_FLAG_COMBINATION, () -> WireCodec.decodeBinary(0x0008, buf("")));
        rejects(WireError.UNKNOWN_FLAGS, () -> WireCodec.decodeBinary(0x0041, buf("")));
        assertThat(WireCodec.decodePayload(0x0010, buf("00 0000000000000007 0000"))).isEqualTo(BinaryPublishAck.ok(7));
        assertThat(WireCodec.decodePayload(0, ByteBuffer.wrap(utf8("{\"type\":\"ok\"}")))).isEqualTo(new Message.Ok());
    }

    @Test
    void decodersUsePositionAndLimitAndIgnoreByteOrder() throws Exception {
        byte[] raw = hex("eeee 0000000000000007 00000001 00000005 68656c6c6f eeee");
        ByteBuffer b = ByteBuffer.wrap(raw).position(2).limit(raw.length - 2).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(WireCodec.decodeEventBatch(0x0002, b)).isEqualTo(new BinaryEventBatch(7, null, List.of(HELLO)));
        assertThat(b.position()).isEqualTo(2);
        ByteBuffer direct = ByteBuffer.allocateDirect(raw.length).put(raw).position(2).limit(raw.length - 2);
        assertThat(WireCodec.decodeEventBatch(0x0002, direct)).isEqualTo(new BinaryEventBatch(7, null, List.of(HELLO)));
    }

    @Test
    void decodedPayloadsAreCopies() throws Exception {
        byte[] raw = hex("00000001 00000005 68656c6c6f");
        BinarySharedEventBatch batch = WireCodec.decodeSharedEventBatch(0x0004, buf(raw));
        raw[raw.length - 1] = 'X';
        assertThat(batch.payloads().get(0)).isEqualTo(HELLO);
    }

    @Test
    void encodingContracts() {
        BinaryPublishBatch b = new BinaryPublishBatch("t1", "default", "demo", List.of(HELLO));
        ByteBuffer small = ByteBuffer.allocate(WireCodec.frameLength(b) - 1);
        assertThatThrownBy(() -> WireCodec.encodeFrame(b, small)).isInstanceOf(BufferOverflowException.class);
        assertThat(small.position()).isZero();
        ByteBuffer le = ByteBuffer.allocate(WireCodec.frameLength(b)).order(ByteOrder.LITTLE_ENDIAN);
        WireCodec.encodeFrame(b, le);
        assertThat(le.remaining()).isZero();
        assertThat(le.array()).isEqualTo(WireCodec.encodeFrame(b));
        assertThatThrownBy(() -> WireCodec.encodeFrame(new BinaryPublishBatch("x".repeat(65536), "", "", List.of())))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("65535");
        assertThat(WireCodec.encodeFrame(new BinaryPublishBatch("x".repeat(65535), "", "", List.of()))).hasSize(12 + 65545);
        assertThatThrownBy(() -> WireCodec.encodeFrame(new BinaryPublishBatch("\uD800", "", "", List.of())))
            .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void recordsCompareContentAndPrintLengths() {
        BinaryEventBatch a = new BinaryEventBatch(1, 2L, List.of(utf8("secret")));
        assertThat(a).isEqualTo(new BinaryEventBatch(1, 2L, List.of(utf8("secret")))).hasSameHashCodeAs(
            new BinaryEventBatch(1, 2L, List.of(utf8("secret"))));
        assertThat(a).isNotEqualTo(new BinaryEventBatch(1, null, List.of(utf8("secret"))));
        assertThat(a.toString()).doesNotContain("secret").contains("1 payloads, 6 bytes");
        assertThat(new BinaryPublishBatch("t", "n", "s", List.of(utf8("secret"))).toString()).doesNotContain("secret");
    }
}
