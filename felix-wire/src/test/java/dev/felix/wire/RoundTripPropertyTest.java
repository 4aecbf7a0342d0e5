package dev.felix.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;

/**
 * decode(encode(x)) == x for generated values of every message type (extensions included) and every
 * binary layout, with u64 values above Long.MAX_VALUE, empty and large payloads and Unicode text; and
 * encoding is canonical (re-encoding a decoded value gives the same bytes).
 */
class RoundTripPropertyTest {
    static final long MAX = FrameHeader.DEFAULT_MAX_FRAME_BYTES;

    @Provide
    Arbitrary<Message> messages() {
        return WireArbitraries.messages();
    }

    @Provide
    Arbitrary<BinaryPayload> binary() {
        return WireArbitraries.binaryPayloads();
    }

    // edge cases are built into the generators (u64 extremes, empty payloads); jqwik's own edge-case
    // mixing would spend a third of the tries on the first type. Tries: about 170 per message type
    // (32 types), so that the ">= 100 of each type" coverage check keeps a wide statistical margin;
    // raise it with the number of types.
    @Property(tries = 6000, seed = TestSupport.SEED, edgeCases = EdgeCasesMode.NONE)
    @StatisticsReport(StatisticsReport.StatisticsReportMode.OFF) // coverage is still enforced
    void everyMessageTypeRoundTripsThroughAFrame(@ForAll("messages") Message m) throws Exception {
        byte[] frame = WireCodec.encodeFrame(m);
        ByteBuffer in = ByteBuffer.wrap(frame);
        Frame f = WireCodec.readFrame(in, MAX);
        assertThat(in.hasRemaining()).isFalse();
        assertThat(f.flags()).isZero();
        Message back = WireCodec.decodeJson(f.payload());
        assertThat(back).isEqualTo(m);
        assertThat(back.hashCode()).isEqualTo(m.hashCode());
        assertThat(WireCodec.encodeFrame(back)).isEqualTo(frame);

        Statistics.label("type").collect(m.type()).coverage(c -> {
            for (MessageType t : MessageType.values()) {
                c.check(t).count(n -> n >= 100);
            }
        });
        Statistics.label("u64 above Long.MAX_VALUE").collect(hasNegativeU64(m));
        Statistics.label("u64 above Long.MAX_VALUE").coverage(c -> c.check(true).count(n -> n >= 100));
    }

    @Property(tries = 1500, seed = TestSupport.SEED)
    void jsonIsCompactAndTypeComesFirst(@ForAll("messages") Message m) throws Exception {
        byte[] json = WireCodec.encodeJson(m);
        assertThat(new String(json, StandardCharsets.UTF_8)).startsWith("{\"type\":\"" + m.type().wireName() + "\"");
        // re-serialising the token stream compactly gives the same bytes: no insignificant whitespace
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        try (JsonParser p = JsonCodec.FACTORY.createParser(json);
             JsonGenerator g = JsonCodec.FACTORY.createGenerator(copy)) {
            p.nextToken();
            g.copyCurrentStructure(p);
        }
        assertThat(copy.toByteArray()).isEqualTo(json);
    }

    @Property(tries = 3000, seed = TestSupport.SEED, edgeCases = EdgeCasesMode.NONE)
    @StatisticsReport(StatisticsReport.StatisticsReportMode.OFF) // coverage is still enforced
    void everyBinaryLayoutRoundTrips(@ForAll("binary") BinaryPayload p) throws Exception {
        byte[] frame = WireCodec.encodeFrame(p);
        assertThat(frame).hasSize(WireCodec.frameLength(p));
        Frame f = WireCodec.readFrame(ByteBuffer.wrap(frame), MAX);
        assertThat(f.flags()).isEqualTo(p.frameFlags());
        PayloadKind kind = PayloadKind.of(f.flags());
        assertThat(kind.allowedIn(Direction.CLIENT_TO_BROKER) || kind.allowedIn(Direction.BROKER_TO_CLIENT)).isTrue();
        assertThat(WireCodec.decode(f)).isEqualTo(p);
        assertThat(WireCodec.decodeBinary(f.flags(), f.payload())).isEqualTo(p);

        // the ByteBuffer encoder writes the same bytes at any position, whatever the byte order
        ByteBuffer dst = ByteBuffer.allocate(frame.length + 7).order(ByteOrder.LITTLE_ENDIAN);
        dst.position(7);
        WireCodec.encodeFrame(p, dst);
        assertThat(dst.hasRemaining()).isFalse();
        assertThat(Arrays.copyOfRange(dst.array(), 7, dst.capacity())).isEqualTo(frame);

        Statistics.label("layout").collect(PayloadKind.of(p.frameFlags())).coverage(c -> {
            for (PayloadKind k : PayloadKind.values()) {
                if (k != PayloadKind.JSON) {
                    c.check(k).count(n -> n >= 100);
                }
            }
        });
    }

    @Provide
    Arbitrary<byte[][]> payloadArrays() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(40).array(byte[][].class).ofMaxSize(12);
    }

    @Property(tries = 1000, seed = TestSupport.SEED)
    void fanoutEncoderMatchesRecordsForAnySlice(@ForAll("payloadArrays") byte[][] payloads, @ForAll long subscriptionId,
                                                @ForAll long baseOffset, @ForAll("fractions") double a,
                                                @ForAll("fractions") double b) throws Exception {
        int from = (int) (a * (payloads.length + 1)) % (payloads.length + 1);
        int count = (int) (b * (payloads.length - from + 1)) % (payloads.length - from + 1);
        List<byte[]> slice = Arrays.asList(payloads).subList(from, from + count);

        ByteBuffer d1 = ByteBuffer.allocate(EventBatchEncoder.sharedFrameLength(true, payloads, from, count));
        EventBatchEncoder.encodeSharedWithOffset(d1, baseOffset, payloads, from, count);
        assertThat(d1.array()).isEqualTo(WireCodec.encodeFrame(new BinarySharedEventBatch(baseOffset, slice)));

        ByteBuffer d2 = ByteBuffer.allocate(EventBatchEncoder.sharedFrameLength(false, payloads, from, count));
        EventBatchEncoder.encodeShared(d2, payloads, from, count);
        assertThat(d2.array()).isEqualTo(WireCodec.encodeFrame(new BinarySharedEventBatch(null, slice)));

        ByteBuffer d3 = ByteBuffer.allocate(EventBatchEncoder.subscriberFrameLength(true, payloads, from, count));
        EventBatchEncoder.encodeSubscriberWithOffset(d3, subscriptionId, baseOffset, payloads, from, count);
        assertThat(WireCodec.decode(WireCodec.readFrame(d3.flip(), MAX)))
            .isEqualTo(new BinaryEventBatch(subscriptionId, baseOffset, slice));

        ByteBuffer d4 = ByteBuffer.allocate(EventBatchEncoder.subscriberFrameLength(false, payloads, from, count));
        EventBatchEncoder.encodeSubscriber(d4, subscriptionId, payloads, from, count);
        assertThat(WireCodec.decode(WireCodec.readFrame(d4.flip(), MAX)))
            .isEqualTo(new BinaryEventBatch(subscriptionId, null, slice));
    }

    @Provide
    Arbitrary<Double> fractions() {
        return Arbitraries.doubles().between(0, 1);
    }

    @Provide
    Arbitrary<String> longText() {
        return Combinators.combine(WireArbitraries.text(), Arbitraries.integers().between(0, 60))
            .as((s, n) -> s.repeat(n));
    }

    @Property(tries = 1000, seed = TestSupport.SEED)
    void ackErrorTextIsTheLongestWholeCharacterPrefixThatFits(@ForAll("longText") String message,
                                                              @ForAll long requestId) throws Exception {
        byte[] frame = WireCodec.encodeFrame(BinaryPublishAck.error(requestId, message));
        BinaryPublishAck back = (BinaryPublishAck) WireCodec.decode(WireCodec.readFrame(ByteBuffer.wrap(frame), MAX));
        String got = back.message();
        int gotBytes = got.getBytes(StandardCharsets.UTF_8).length;
        assertThat(back.requestId()).isEqualTo(requestId);
        assertThat(message).startsWith(got);
        assertThat(gotBytes).isLessThanOrEqualTo(BinaryPublishAck.MAX_MESSAGE_BYTES);
        if (got.length() < message.length()) {
            // the next whole character would not have fitted
            int next = message.codePointAt(got.length());
            int nextBytes = new String(Character.toChars(next)).getBytes(StandardCharsets.UTF_8).length;
            assertThat(gotBytes + nextBytes).isGreaterThan(BinaryPublishAck.MAX_MESSAGE_BYTES);
        }
    }

    private static boolean hasNegativeU64(Message m) {
        if (m instanceof Message.PublishOk p) {
            return p.requestId() < 0;
        }
        if (m instanceof Message.CacheOk c) {
            return c.requestId() < 0;
        }
        if (m instanceof Message.Subscribed s) {
            return s.subscriptionId() < 0;
        }
        if (m instanceof Message.EventStreamHello h) {
            return h.subscriptionId() < 0;
        }
        if (m instanceof Message.SubscribeCursorError e) {
            return e.requested() < 0 || e.available() < 0;
        }
        if (m instanceof Message.Gap g) {
            return g.to() < 0;
        }
        if (m instanceof Message.CacheInfo c) {
            return c.maxEntries() < 0;
        }
        if (m instanceof Message.WatchSnapshot w) {
            return w.offset() < 0;
        }
        if (m instanceof Message.WatchChange w) {
            return w.offset() < 0;
        }
        if (m instanceof Message.WatchEnded w) {
            return w.resumeFrom() < 0;
        }
        return false;
    }
}
