package dev.felix.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Helpers shared by the tests. */
final class TestSupport {
    /** Every jqwik property uses this seed, so runs are reproducible. */
    static final String SEED = "4242424242";

    private TestSupport() {
    }

    /** Hex to bytes; spaces and '|' are ignored so literals can be grouped by field. */
    static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replaceAll("[\\s|]", ""));
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String str(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    static ByteBuffer buf(byte[] b) {
        return ByteBuffer.wrap(b);
    }

    static ByteBuffer buf(String hex) {
        return ByteBuffer.wrap(hex(hex));
    }

    /** A JSON frame header for a payload of {@code len} bytes, derived from the spec: FLX1, v1, flags 0. */
    static String jsonHeaderHex(int len) {
        return "464c5831" + "0001" + "0000" + String.format("%08x", len);
    }

    @FunctionalInterface
    interface WireCall {
        Object call() throws WireException;
    }

    /** Asserts that {@code call} throws a WireException with {@code error} and returns it. */
    static WireException rejects(WireError error, WireCall call) {
        try {
            Object v = call.call();
            return fail("expected " + error + " but decoded " + v);
        } catch (WireException e) {
            assertThat(e.error()).as("error of: %s", e.getMessage()).isEqualTo(error);
            assertThat(e.getMessage()).isNotBlank();
            return e;
        }
    }

    static Message json(String s) throws WireException {
        return WireCodec.decodeJson(utf8(s));
    }

    static WireException rejectsJson(WireError error, String json) {
        return rejects(error, () -> json(json));
    }

    /** Minimal JSON tree reader (jackson-core only) for the vector files: Map, List, String, BigInteger, Boolean, null. */
    static Object parseTree(byte[] json) throws IOException {
        try (JsonParser p = new JsonFactory().createParser(json)) {
            p.nextToken();
            return readTree(p);
        }
    }

    private static Object readTree(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        switch (t) {
            case START_OBJECT: {
                Map<String, Object> m = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String k = p.currentName();
                    p.nextToken();
                    m.put(k, readTree(p));
                }
                return m;
            }
            case START_ARRAY: {
                List<Object> l = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    l.add(readTree(p));
                }
                return l;
            }
            case VALUE_STRING:
                return p.getText();
            case VALUE_NUMBER_INT:
                return p.getBigIntegerValue();
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return null;
            default:
                throw new IOException("unsupported token " + t);
        }
    }

    static long u64(Object bigInteger) {
        BigInteger b = (BigInteger) bigInteger;
        assertThat(b.signum()).isGreaterThanOrEqualTo(0);
        assertThat(b.bitLength()).isLessThanOrEqualTo(64);
        return b.longValue();
    }
}
