package dev.felix.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * No input makes a decoder throw anything but {@link WireException}: arbitrary bytes, mutated valid
 * frames and JSON token soup go into every decoder. A JSON payload that does decode must re-encode
 * and decode to the same message.
 */
class FuzzPropertyTest {
    static final long MAX = 1 << 20;
    static final int[] EVERY_FLAGS = {0x0000, 0x0001, 0x0009, 0x0010, 0x0002, 0x0022, 0x0004, 0x0024};

    @FunctionalInterface
    interface Decode {
        Object run() throws WireException;
    }

    /** Runs {@code d}; a WireException is an acceptable outcome, anything else propagates and fails. */
    static boolean decodesOrRejects(Decode d) {
        try {
            Object v = d.run();
            return v != null;
        } catch (WireException e) {
            assertThat(e.error()).isNotNull();
            assertThat(e.getMessage()).isNotBlank();
            return false;
        }
    }

    /** Every decoder of this module over {@code bytes}, with {@code flags} where a decoder takes flags. */
    static void everyDecoder(byte[] bytes, int flags) {
        decodesOrRejects(() -> FrameHeader.read(ByteBuffer.wrap(bytes), MAX));
        decodesOrRejects(() -> FrameHeader.peek(ByteBuffer.wrap(bytes), MAX));
        decodesOrRejects(() -> {
            ByteBuffer in = ByteBuffer.wrap(bytes);
            while (in.hasRemaining()) {
                WireCodec.decode(WireCodec.readFrame(in, MAX));
            }
            return in;
        });
        decodesOrRejects(() -> {
            WireCodec.checkEndOfStream(ByteBuffer.wrap(bytes));
            return bytes;
        });
        decodesOrRejects(() -> PayloadKind.of(flags));
        decodesOrRejects(() -> PayloadKind.of(flags, Direction.CLIENT_TO_BROKER));
        jsonDecoderOnly(bytes);
        decodesOrRejects(() -> WireCodec.decodePayload(flags, ByteBuffer.wrap(bytes)));
        decodesOrRejects(() -> WireCodec.decodeBinary(flags, ByteBuffer.wrap(bytes)));
        for (int f : EVERY_FLAGS) {
            decodesOrRejects(() -> WireCodec.decodePayload(f, ByteBuffer.wrap(bytes)));
        }
        decodesOrRejects(() -> WireCodec.decodePublishBatch(ByteBuffer.wrap(bytes)));
        decodesOrRejects(() -> WireCodec.decodeAckedPublishPrefix(ByteBuffer.wrap(bytes)));
        decodesOrRejects(() -> WireCodec.decodeAckedPublishBatch(ByteBuffer.wrap(bytes)));
        decodesOrRejects(() -> WireCodec.decodePublishAck(ByteBuffer.wrap(bytes)));
        decodesOrRejects(() -> WireCodec.decodeEventBatch(flags, ByteBuffer.wrap(bytes)));
        decodesOrRejects(() -> WireCodec.decodeEventBatch(0x0002, ByteBuffer.wrap(bytes)));
        decodesOrRejects(() -> WireCodec.decodeEventBatch(0x0022, ByteBuffer.wrap(bytes)));
        decodesOrRejects(() -> WireCodec.decodeSharedEventBatch(flags, ByteBuffer.wrap(bytes)));
        decodesOrRejects(() -> WireCodec.decodeSharedEventBatch(0x0004, ByteBuffer.wrap(bytes)));
        decodesOrRejects(() -> WireCodec.decodeSharedEventBatch(0x0024, ByteBuffer.wrap(bytes)));
    }

    /** The JSON decoder; when it accepts, the message must round-trip canonically. */
    static boolean jsonDecoderOnly(byte[] bytes) {
        Message[] out = new Message[1];
        boolean ok = decodesOrRejects(() -> out[0] = WireCodec.decodeJson(bytes));
        if (ok) {
            byte[] again = WireCodec.encodeJson(out[0]);
            assertThat(decodesOrRejects(() -> WireCodec.decodeJson(again))).isTrue();
            try {
                assertThat(WireCodec.decodeJson(again)).isEqualTo(out[0]);
            } catch (WireException e) {
                throw new AssertionError("re-encoded message does not decode: " + e, e);
            }
        }
        return ok;
    }

    @Property(tries = 3000, seed = TestSupport.SEED)
    void arbitraryBytesIntoEveryDecoder(@ForAll @Size(max = 200) byte[] bytes,
                                        @ForAll @IntRange(min = 0, max = 0xFFFF) int flags) {
        everyDecoder(bytes, flags);
        // the same bytes behind a valid header, so they reach the payload decoders through readFrame
        for (int f : EVERY_FLAGS) {
            everyDecoder(WireCodec.frame(f, bytes), f);
        }
    }

    // ------------------------------------------------------------------ mutations of valid frames

    /** One edit of a byte array, positions taken modulo the current length. */
    record Mutation(int kind, int position, int value, int length) {
        byte[] apply(byte[] in) {
            int n = in.length;
            int p = n == 0 ? 0 : Math.floorMod(position, n);
            switch (kind) {
                case 0: { // overwrite a byte
                    if (n == 0) {
                        return in;
                    }
                    byte[] out = in.clone();
                    out[p] = (byte) value;
                    return out;
                }
                case 1: { // flip one bit
                    if (n == 0) {
                        return in;
                    }
                    byte[] out = in.clone();
                    out[p] ^= (byte) (1 << (value & 7));
                    return out;
                }
                case 2: { // insert a byte
                    byte[] out = new byte[n + 1];
                    System.arraycopy(in, 0, out, 0, p);
                    out[p] = (byte) value;
                    System.arraycopy(in, p, out, p + 1, n - p);
                    return out;
                }
                case 3: { // delete a run
                    int len = Math.min(length, n - p);
                    byte[] out = new byte[n - len];
                    System.arraycopy(in, 0, out, 0, p);
                    System.arraycopy(in, p + len, out, p, n - p - len);
                    return out;
                }
                case 4: // truncate
                    return Arrays.copyOf(in, p);
                case 5: { // duplicate a run
                    int len = Math.min(length, n - p);
                    byte[] out = new byte[n + len];
                    System.arraycopy(in, 0, out, 0, p + len);
                    System.arraycopy(in, p, out, p + len, n - p);
                    return out;
                }
                default: { // write a big-endian u32 (lengths, counts)
                    if (n < 4) {
                        return in;
                    }
                    byte[] out = in.clone();
                    int q = Math.floorMod(position, n - 3);
                    int v = value * 0x01010101 ^ (length << 24);
                    out[q] = (byte) (v >>> 24);
                    out[q + 1] = (byte) (v >>> 16);
                    out[q + 2] = (byte) (v >>> 8);
                    out[q + 3] = (byte) v;
                    return out;
                }
            }
        }
    }

    @Provide
    Arbitrary<List<Mutation>> mutations() {
        Arbitrary<Mutation> m = Combinators.combine(Arbitraries.integers().between(0, 6), Arbitraries.integers(),
            Arbitraries.integers().between(0, 255), Arbitraries.integers().between(1, 16)).as(Mutation::new);
        return m.list().ofMinSize(1).ofMaxSize(4);
    }

    @Provide
    Arbitrary<byte[]> validFrames() {
        return WireArbitraries.validFrames();
    }

    @Property(tries = 3000, seed = TestSupport.SEED)
    void mutatedValidFramesNeverThrowAnythingElse(@ForAll("validFrames") byte[] frame,
                                                  @ForAll("mutations") List<Mutation> mutations) {
        byte[] bytes = frame;
        for (Mutation m : mutations) {
            bytes = m.apply(bytes);
        }
        byte[] mutated = bytes;
        int flags = frame.length >= 8 ? ((frame[6] & 0xFF) << 8) | (frame[7] & 0xFF) : 0;
        everyDecoder(mutated, flags);
        // and the mutated payload alone, with the original flags (header intact, body damaged)
        byte[] payload = Arrays.copyOfRange(frame, 12, frame.length);
        for (Mutation m : mutations) {
            payload = m.apply(payload);
        }
        byte[] p = payload;
        decodesOrRejects(() -> WireCodec.decodePayload(flags, ByteBuffer.wrap(p)));
    }

    // ------------------------------------------------------------------ JSON token soup

    static final String[] TOKENS = {
        "{", "}", "[", "]", ",", ":", " ", "\"type\"", "\"publish\"", "\"publish_batch\"", "\"subscribe\"",
        "\"stream_info\"", "\"stream_list_result\"", "\"cache_value\"", "\"gap\"", "\"ok\"", "\"error\"",
        "\"tenant_id\"", "\"namespace\"", "\"stream\"", "\"payload\"", "\"payloads\"", "\"value\"", "\"start\"",
        "\"offset\"", "\"shard_info\"", "\"streams\"", "\"shards\"", "\"shard\"", "\"from\"", "\"to\"",
        "\"request_id\"", "\"message\"", "\"ack\"", "\"per_batch\"", "\"latest\"", "\"aGVsbG8=\"", "\"aGVsbG8\"",
        "\"\"", "\"t1\"", "\"\\ud800\"", "\"\\u0041\"", "0", "7", "-1", "1.5", "1e3", "18446744073709551615",
        "18446744073709551616", "4294967296", "65536", "null", "true", "false", "\"durable\"", "\"base_offset\"",
        "\"next_offset\"", "\"subscription_id\"", "\"reason\"", "\"too_old\"", "\"queue_policy\"", "\"block\"",
        "\"watch_snapshot\"", "\"watch_change\"", "\"cache_info\"", "\"entries\"", "\"last\"", "\"key\"", "\"op\"",
        "\"expires_at_ms\"", "\"incarnation\"", "\"max_entries\"", "\"backing\""};

    @Provide
    Arbitrary<String> tokenSoup() {
        Arbitrary<String> token = Arbitraries.of(TOKENS);
        return token.list().ofMaxSize(40).map(l -> String.join("", l));
    }

    @Property(tries = 4000, seed = TestSupport.SEED)
    void jsonTokenSoupIsDecodedOrRejectedCleanly(@ForAll("tokenSoup") String soup) {
        jsonDecoderOnly(soup.getBytes(StandardCharsets.UTF_8));
        jsonDecoderOnly(("{\"type\":" + soup + "}").getBytes(StandardCharsets.UTF_8));
    }

    @Provide
    Arbitrary<List<String>> fieldSoup() {
        // objects built from plausible key/value pairs, so that many of them are valid messages
        Arbitrary<String> key = Arbitraries.of("\"tenant_id\"", "\"namespace\"", "\"stream\"", "\"cache\"", "\"key\"",
            "\"payload\"", "\"payloads\"", "\"value\"", "\"request_id\"", "\"ack\"", "\"start\"", "\"ttl_ms\"",
            "\"subscription_id\"", "\"shard\"", "\"shards\"", "\"message\"", "\"code\"", "\"x\"", "\"offset\"",
            "\"entries\"", "\"last\"", "\"op\"", "\"backing\"", "\"max_entries\"", "\"resume_from\"", "\"reason\"",
            "\"incarnation\"");
        Arbitrary<String> value = Arbitraries.of("\"t1\"", "\"aGVsbG8=\"", "[\"aGVsbG8=\",\"\"]", "7", "null",
            "\"per_message\"", "{\"offset\":18446744073709551615}", "\"earliest\"", "[1,2]", "\"aGVsbG9=\"", "-3",
            "[]", "{}", "true", "[{\"key\":\"k\",\"value\":\"aGVsbG8=\"}]", "[{\"key\":\"k\"}]");
        Arbitrary<String> pair = Combinators.combine(key, value).as((k, v) -> k + ":" + v);
        return pair.list().ofMaxSize(10);
    }

    @Property(tries = 4000, seed = TestSupport.SEED)
    void plausibleObjectsOfEveryTypeAreDecodedOrRejectedCleanly(
        @ForAll("fieldSoup") List<String> pairs, @ForAll MessageType type,
        @ForAll @IntRange(min = 0, max = 10) int typeAt) {
        List<String> all = new ArrayList<>(pairs);
        all.add(Math.min(typeAt, all.size()), "\"type\":\"" + type.wireName() + "\"");
        byte[] json = ("{" + String.join(",", all) + "}").getBytes(StandardCharsets.UTF_8);
        jsonDecoderOnly(json);
    }
}
