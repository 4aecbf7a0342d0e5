package dev.felix.wire;

import com.fasterxml.jackson.core.Base64Variants;
import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import dev.felix.wire.JsonSchema.Field;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * JSON encoder and decoder for {@link Message}, on the Jackson streaming API (no data binding, no
 * reflection), driven by the tables in {@link JsonCatalog}.
 *
 * <h2>Decoder rules (upstream serde behaviour, plus strictness where upstream is strict)</h2>
 * <ul>
 *   <li>The payload is UTF-8 (checked strictly first: no overlong forms, surrogates, BOM or NUL) and
 *       holds exactly one JSON object; whitespace around it is allowed, anything else is not.</li>
 *   <li>{@code "type"} may be anywhere. It is nearly always first (our encoder and upstream's put it
 *       there) and then the object is read in one pass; otherwise one extra scan finds it first.</li>
 *   <li>Unknown keys are ignored (skipped without building values). Any key appearing twice in one
 *       object is {@link WireError#DUPLICATE_FIELD}.</li>
 *   <li>Integers must be plain JSON integers (no sign, fraction or exponent) within the field's
 *       unsigned range; u64 values up to {@code 2^64-1} are accepted and held in a {@code long}.</li>
 *   <li>Strings must not contain unpaired surrogates (which JSON escapes can express).</li>
 * </ul>
 *
 * <p>Package-private; stateless; thread-safe (the shared {@link JsonFactory} is thread-safe).
 */
final class JsonCodec {
    /**
     * Shared factory. Reading: field names are not interned (attacker-chosen names must not pollute
     * the JVM string pool), a symbol-table hash flood degrades instead of throwing an unchecked
     * exception, and charset auto-detection is off (wire JSON is UTF-8 only). Writing: the output
     * matches serde_json byte for byte: non-ASCII (including characters outside the BMP) raw as
     * UTF-8, {@code \b \f \n \r \t} short escapes, other control characters as lowercase
     * {@code u00xx} escapes, {@code /} unescaped. String values are not capped at Jackson's default
     * 20M characters: the frame size cap already bounds them, and a base64 payload near a large
     * configured frame cap must still decode.
     */
    static final JsonFactory FACTORY = JsonFactory.builder()
        .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
        .disable(JsonFactory.Feature.FAIL_ON_SYMBOL_HASH_OVERFLOW)
        .disable(JsonFactory.Feature.CHARSET_DETECTION)
        .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
        .disable(JsonWriteFeature.WRITE_HEX_UPPER_CASE)
        .disable(JsonWriteFeature.ESCAPE_NON_ASCII)
        .disable(JsonWriteFeature.ESCAPE_FORWARD_SLASHES)
        .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
        .build();

    private static final long U16_MAX = 0xFFFFL;
    private static final long U32_MAX = 0xFFFF_FFFFL;
    private static final long U64_MAX = -1L;

    private JsonCodec() {
    }

    // ================================================================== encoding

    /**
     * Encodes {@code m} as compact JSON; when {@code framed} the bytes are preceded by a
     * filled-in frame header (flags 0).
     *
     * @throws IllegalArgumentException if a string holds an unpaired surrogate, or the encoding exceeds 2 GiB
     */
    static byte[] encode(Message m, boolean framed) {
        ByteSink sink = new ByteSink(framed ? FrameHeader.HEADER_LENGTH : 0, sizeHint(m));
        try (JsonGenerator g = FACTORY.createGenerator(sink, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeFieldName("type");
            g.writeString(m.type().wireName());
            writeFields(g, JsonCatalog.schema(m.type()), m);
            g.writeEndObject();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot encode " + m.type().wireName() + ": " + e.getMessage(), e);
        }
        if (framed) {
            int payload = sink.length() - FrameHeader.HEADER_LENGTH;
            FrameHeader.write(ByteBuffer.wrap(sink.array(), 0, FrameHeader.HEADER_LENGTH), 0, payload);
        }
        return sink.toByteArray();
    }

    /** Rough encoded size, so that large payloads are not copied through repeated buffer growth. */
    private static int sizeHint(Message m) {
        long bytes = 0;
        if (m instanceof Message.Publish p) {
            bytes = p.payload().length;
        } else if (m instanceof Message.Event e) {
            bytes = e.payload().length;
        } else if (m instanceof Message.CachePut c) {
            bytes = c.value().length;
        } else if (m instanceof Message.CacheValue c) {
            bytes = c.value() == null ? 0 : c.value().length;
        } else if (m instanceof Message.PublishBatch b) {
            for (byte[] p : b.payloads()) {
                bytes += p.length + 3;
            }
        } else if (m instanceof Message.EventBatch b) {
            for (byte[] p : b.payloads()) {
                bytes += p.length + 3;
            }
        } else if (m instanceof Message.WatchChange c) {
            bytes = c.value() == null ? 0 : c.value().length;
        } else if (m instanceof Message.WatchSnapshot s) {
            for (CacheEntry e : s.entries()) {
                bytes += e.value().length + 3 + e.key().length() * 3L + 64;
            }
        }
        return (int) Math.min(Integer.MAX_VALUE - 64, 256 + bytes / 3 * 4 + 4);
    }

    private static <T> void writeFields(JsonGenerator g, JsonSchema<T> schema, T value) throws IOException {
        for (Field<T> f : schema.fields) {
            Object v = f.getter.apply(value);
            if (v == null) {
                if (f.has(JsonSchema.WRITE_NULL)) {
                    g.writeFieldName(f.name);
                    g.writeNull();
                }
                continue;
            }
            g.writeFieldName(f.name);
            writeValue(g, f, v);
        }
    }

    private static void writeValue(JsonGenerator g, Field<?> f, Object v) throws IOException {
        switch (f.kind) {
            case STR:
                writeString(g, f.name, (String) v);
                break;
            case U16:
                g.writeNumber((int) (Integer) v);
                break;
            case U32:
                g.writeNumber(Integer.toUnsignedLong((Integer) v));
                break;
            case U64:
                writeU64(g, (Long) v);
                break;
            case BOOL:
                g.writeBoolean((Boolean) v);
                break;
            case B64: {
                byte[] b = (byte[]) v;
                g.writeBinary(Base64Variants.MIME_NO_LINEFEEDS, b, 0, b.length);
                break;
            }
            case B64_LIST: {
                @SuppressWarnings("unchecked")
                List<byte[]> list = (List<byte[]>) v;
                g.writeStartArray();
                for (byte[] b : list) {
                    g.writeBinary(Base64Variants.MIME_NO_LINEFEEDS, b, 0, b.length);
                }
                g.writeEndArray();
                break;
            }
            case ACK:
                g.writeString(((AckMode) v).wireName());
                break;
            case QUEUE_POLICY:
                g.writeString(((QueuePolicy) v).wireName());
                break;
            case CURSOR_REASON:
                g.writeString(((CursorErrorReason) v).wireName());
                break;
            case START:
                if (v instanceof StartPosition.AtOffset at) {
                    g.writeStartObject();
                    g.writeFieldName("offset");
                    writeU64(g, at.offset());
                    g.writeEndObject();
                } else {
                    g.writeString(v instanceof StartPosition.Earliest ? "earliest" : "latest");
                }
                break;
            case U32_LIST: {
                @SuppressWarnings("unchecked")
                List<Integer> list = (List<Integer>) v;
                g.writeStartArray();
                for (Integer i : list) {
                    g.writeNumber(Integer.toUnsignedLong(i));
                }
                g.writeEndArray();
                break;
            }
            case STR_LIST: {
                @SuppressWarnings("unchecked")
                List<String> list = (List<String>) v;
                g.writeStartArray();
                for (String s : list) {
                    writeString(g, f.name, s);
                }
                g.writeEndArray();
                break;
            }
            case U64_LIST: {
                @SuppressWarnings("unchecked")
                List<Long> list = (List<Long>) v;
                g.writeStartArray();
                for (Long l : list) {
                    writeU64(g, l);
                }
                g.writeEndArray();
                break;
            }
            case OBJ_LIST: {
                @SuppressWarnings("unchecked")
                JsonSchema<Object> nested = (JsonSchema<Object>) f.nested;
                g.writeStartArray();
                for (Object o : (List<?>) v) {
                    g.writeStartObject();
                    writeFields(g, nested, o);
                    g.writeEndObject();
                }
                g.writeEndArray();
                break;
            }
            case OBJ: {
                @SuppressWarnings("unchecked")
                JsonSchema<Object> nested = (JsonSchema<Object>) f.nested;
                g.writeStartObject();
                writeFields(g, nested, v);
                g.writeEndObject();
                break;
            }
            default:
                throw new AssertionError(f.kind);
        }
    }

    private static void writeString(JsonGenerator g, String field, String s) throws IOException {
        int bad = Utf8.firstLoneSurrogate(s);
        if (bad >= 0) {
            throw new IllegalArgumentException(field + ": unpaired surrogate at char " + bad);
        }
        g.writeString(s);
    }

    private static void writeU64(JsonGenerator g, long v) throws IOException {
        if (v >= 0) {
            g.writeNumber(v);
        } else {
            g.writeNumber(Long.toUnsignedString(v)); // above Long.MAX_VALUE: written as raw digits
        }
    }

    // ================================================================== decoding

    /** Decodes {@code remaining()} bytes from {@code payload.position()}; does not move the position. */
    static Message decode(ByteBuffer payload) throws WireException {
        if (payload.hasArray()) {
            return decode(payload.array(), payload.arrayOffset() + payload.position(), payload.remaining());
        }
        byte[] copy = new byte[payload.remaining()];
        payload.get(payload.position(), copy, 0, copy.length);
        return decode(copy, 0, copy.length);
    }

    static Message decode(byte[] a, int off, int len) throws WireException {
        checkEncoding(a, off, len);
        try {
            try (JsonParser p = FACTORY.createParser(a, off, len)) {
                startObject(p);
                if (p.nextToken() == JsonToken.FIELD_NAME && "type".equals(p.currentName())) {
                    MessageType type = readType(p);
                    return finish(p, readTop(p, type, true));
                }
            }
            // "type" is not the first key: find it, then read the object again from the start
            MessageType type = scanForType(a, off, len);
            try (JsonParser p = FACTORY.createParser(a, off, len)) {
                startObject(p);
                return finish(p, readTop(p, type, false));
            }
        } catch (JsonProcessingException e) {
            JsonLocation loc = e.getLocation();
            String at = loc == null || loc.getByteOffset() < 0 ? "" : " (at byte " + loc.getByteOffset() + ")";
            throw new WireException(WireError.MALFORMED_JSON,
                "malformed JSON: " + abbreviate(e.getOriginalMessage(), 200) + at, e);
        } catch (IOException e) {
            throw new WireException(WireError.MALFORMED_JSON, "malformed JSON: " + e.getMessage(), e);
        }
    }

    /** UTF-8 well-formedness, and no BOM or NUL (either would let a lenient parser guess another charset). */
    private static void checkEncoding(byte[] a, int off, int len) throws WireException {
        if (len >= 3 && a[off] == (byte) 0xEF && a[off + 1] == (byte) 0xBB && a[off + 2] == (byte) 0xBF) {
            throw new WireException(WireError.MALFORMED_JSON, "malformed JSON: byte order mark is not allowed");
        }
        int bad = Utf8.firstInvalid(a, off, len, true); // one pass: UTF-8 and NUL
        if (bad >= 0) {
            if (a[bad] == 0) {
                throw new WireException(WireError.MALFORMED_JSON, "malformed JSON: NUL byte at byte " + (bad - off));
            }
            throw new WireException(WireError.BAD_UTF8, "JSON payload: invalid UTF-8 at byte " + (bad - off));
        }
    }

    private static void startObject(JsonParser p) throws IOException, WireException {
        JsonToken t = p.nextToken();
        if (t != JsonToken.START_OBJECT) {
            throw new WireException(WireError.MALFORMED_JSON,
                t == null ? "malformed JSON: empty payload" : "malformed JSON: payload must be a JSON object, got " + t);
        }
    }

    private static Message finish(JsonParser p, Message m) throws IOException, WireException {
        if (p.nextToken() != null) {
            throw new WireException(WireError.MALFORMED_JSON, "malformed JSON: trailing content after the object");
        }
        return m;
    }

    /** Reads the value of the {@code "type"} key (the parser is on the key). */
    private static MessageType readType(JsonParser p) throws IOException, WireException {
        JsonToken t = p.nextToken();
        if (t != JsonToken.VALUE_STRING) {
            throw new WireException(WireError.BAD_FIELD, "type: must be a string, got " + describe(t));
        }
        String name = p.getText();
        MessageType type = MessageType.fromWireName(name);
        if (type == null) {
            throw new WireException(WireError.UNKNOWN_TYPE,
                "unknown message type \"" + abbreviate(name, 64) + "\"");
        }
        return type;
    }

    private static MessageType scanForType(byte[] a, int off, int len) throws IOException, WireException {
        try (JsonParser p = FACTORY.createParser(a, off, len)) {
            startObject(p);
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                if ("type".equals(p.currentName())) {
                    return readType(p);
                }
                p.nextToken();
                p.skipChildren();
            }
            if (t != JsonToken.END_OBJECT) {
                throw new WireException(WireError.MALFORMED_JSON, "malformed JSON: unexpected " + describe(t));
            }
            throw new WireException(WireError.MISSING_FIELD, "type: required field is missing");
        }
    }

    private static Message readTop(JsonParser p, MessageType type, boolean typeSeen)
        throws IOException, WireException {
        try {
            return readObject(p, JsonCatalog.schema(type), true, typeSeen);
        } catch (WireException e) {
            throw e.prefixed(type.wireName());
        }
    }

    /**
     * Reads the keys of an object whose {@code START_OBJECT} (and, at top level, possibly the
     * {@code type} key) has been consumed, through the matching {@code END_OBJECT}.
     */
    private static <T> T readObject(JsonParser p, JsonSchema<T> s, boolean topLevel, boolean typeSeen)
        throws IOException, WireException {
        Field<T>[] fields = s.fields;
        Object[] vals = new Object[fields.length];
        long seen = 0;
        Set<String> unknown = null;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            int idx = s.indexOf(name);
            if (idx >= 0) {
                long bit = 1L << idx;
                if ((seen & bit) != 0) {
                    throw duplicate(name);
                }
                seen |= bit;
                vals[idx] = readValue(p, fields[idx]);
            } else {
                if (topLevel && "type".equals(name)) {
                    if (typeSeen) {
                        throw duplicate(name);
                    }
                    typeSeen = true; // value already checked by scanForType
                } else {
                    if (unknown == null) {
                        unknown = new HashSet<>(8);
                    }
                    if (!unknown.add(name)) {
                        throw duplicate(name);
                    }
                }
                p.nextToken();
                p.skipChildren();
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw new WireException(WireError.MALFORMED_JSON, "malformed JSON: unexpected " + describe(t));
        }
        if ((seen & s.requiredMask) != s.requiredMask) {
            long missing = s.requiredMask & ~seen;
            throw new WireException(WireError.MISSING_FIELD,
                fields[Long.numberOfTrailingZeros(missing)].name + ": required field is missing");
        }
        return s.factory.create(new JsonSchema.Values(vals));
    }

    private static WireException duplicate(String name) {
        return new WireException(WireError.DUPLICATE_FIELD, abbreviate(name, 64) + ": duplicate key");
    }

    private static Object readValue(JsonParser p, Field<?> f) throws IOException, WireException {
        JsonToken t = p.nextToken();
        String name = f.name;
        if (t == JsonToken.VALUE_NULL) {
            if (f.has(JsonSchema.NULLABLE)) {
                return null;
            }
            throw bad(name, "must not be null");
        }
        switch (f.kind) {
            case STR:
                return readString(p, t, name);
            case U16:
                return (int) readUnsigned(p, t, name, -1, U16_MAX);
            case U32:
                return (int) readUnsigned(p, t, name, -1, U32_MAX);
            case U64:
                return readUnsigned(p, t, name, -1, U64_MAX);
            case BOOL:
                if (t == JsonToken.VALUE_TRUE) {
                    return Boolean.TRUE;
                }
                if (t == JsonToken.VALUE_FALSE) {
                    return Boolean.FALSE;
                }
                throw bad(name, "must be a boolean, got " + describe(t));
            case B64:
                if (t != JsonToken.VALUE_STRING) {
                    throw bad(name, "must be a base64 string, got " + describe(t));
                }
                return Base64Strict.decode(p.getTextCharacters(), p.getTextOffset(), p.getTextLength(), name);
            case B64_LIST:
                return readBase64List(p, t, name);
            case ACK: {
                String s = readString(p, t, name);
                AckMode m = AckMode.fromWireName(s);
                if (m == null) {
                    throw bad(name, "unknown ack mode \"" + abbreviate(s, 32) + "\" (none|per_message|per_batch)");
                }
                return m;
            }
            case QUEUE_POLICY: {
                String s = readString(p, t, name);
                QueuePolicy q = QueuePolicy.fromWireName(s);
                if (q == null) {
                    throw bad(name, "unknown queue policy \"" + abbreviate(s, 32)
                        + "\" (block|drop_new|drop_old|catch_up)");
                }
                return q;
            }
            case CURSOR_REASON: {
                String s = readString(p, t, name);
                CursorErrorReason r = CursorErrorReason.fromWireName(s);
                if (r == null) {
                    throw bad(name, "unknown reason \"" + abbreviate(s, 32) + "\" (too_old|in_future)");
                }
                return r;
            }
            case START:
                return readStart(p, t, name);
            case U32_LIST: {
                if (t != JsonToken.START_ARRAY) {
                    throw bad(name, "must be an array of unsigned integers, got " + describe(t));
                }
                List<Integer> list = new ArrayList<>();
                while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                    list.add((int) readUnsigned(p, t, name, list.size(), U32_MAX));
                }
                return list;
            }
            case STR_LIST: {
                if (t != JsonToken.START_ARRAY) {
                    throw bad(name, "must be an array of strings, got " + describe(t));
                }
                List<String> list = new ArrayList<>();
                while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                    list.add(readString(p, t, at(name, list.size())));
                }
                return list;
            }
            case U64_LIST: {
                if (t != JsonToken.START_ARRAY) {
                    throw bad(name, "must be an array of unsigned integers, got " + describe(t));
                }
                List<Long> list = new ArrayList<>();
                while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                    list.add(readUnsigned(p, t, name, list.size(), U64_MAX));
                }
                return list;
            }
            case OBJ_LIST: {
                if (t != JsonToken.START_ARRAY) {
                    throw bad(name, "must be an array of objects, got " + describe(t));
                }
                List<Object> list = new ArrayList<>();
                while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                    if (t != JsonToken.START_OBJECT) {
                        throw bad(at(name, list.size()), "must be an object, got " + describe(t));
                    }
                    try {
                        list.add(readObject(p, f.nested, false, false));
                    } catch (WireException e) {
                        throw e.prefixed(at(name, list.size()));
                    }
                }
                return list;
            }
            case OBJ: {
                if (t != JsonToken.START_OBJECT) {
                    throw bad(name, "must be an object, got " + describe(t));
                }
                try {
                    return readObject(p, f.nested, false, false);
                } catch (WireException e) {
                    throw e.prefixed(name);
                }
            }
            default:
                throw new AssertionError(f.kind);
        }
    }

    private static List<byte[]> readBase64List(JsonParser p, JsonToken t, String name)
        throws IOException, WireException {
        if (t != JsonToken.START_ARRAY) {
            throw bad(name, "must be an array of base64 strings, got " + describe(t));
        }
        List<byte[]> list = new ArrayList<>();
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.VALUE_STRING) {
                throw bad(name + "[" + list.size() + "]", "must be a base64 string, got " + describe(t));
            }
            try {
                list.add(Base64Strict.decode(p.getTextCharacters(), p.getTextOffset(), p.getTextLength(), name));
            } catch (WireException e) {
                // re-label with the element index (built only on failure)
                throw new WireException(e.error(), name + "[" + list.size() + "]"
                    + e.getMessage().substring(name.length()));
            }
        }
        return list;
    }

    private static String readString(JsonParser p, JsonToken t, String name) throws IOException, WireException {
        if (t != JsonToken.VALUE_STRING) {
            throw bad(name, "must be a string, got " + describe(t));
        }
        String s = p.getText();
        int bad = Utf8.firstLoneSurrogate(s);
        if (bad >= 0) {
            throw new WireException(WireError.BAD_UTF8, name + ": unpaired surrogate escape at char " + bad);
        }
        return s;
    }

    private static StartPosition readStart(JsonParser p, JsonToken t, String name) throws IOException, WireException {
        if (t == JsonToken.VALUE_STRING) {
            String s = p.getText();
            if (s.equals("latest")) {
                return StartPosition.LATEST;
            }
            if (s.equals("earliest")) {
                return StartPosition.EARLIEST;
            }
            throw bad(name, "unknown start position \"" + abbreviate(s, 32) + "\" (latest|earliest|{\"offset\":n})");
        }
        if (t == JsonToken.START_OBJECT) {
            if (p.nextToken() != JsonToken.FIELD_NAME || !"offset".equals(p.currentName())) {
                throw bad(name, "object form must be {\"offset\":n}");
            }
            long offset = readUnsigned(p, p.nextToken(), "start.offset", -1, U64_MAX);
            if (p.nextToken() != JsonToken.END_OBJECT) {
                throw bad(name, "object form must have exactly one key, \"offset\"");
            }
            return StartPosition.offset(offset);
        }
        throw bad(name, "must be \"latest\", \"earliest\" or {\"offset\":n}, got " + describe(t));
    }

    /**
     * Parses a JSON integer token as an unsigned value no larger than {@code max} (compared
     * unsigned; {@code -1L} means {@code 2^64-1}), straight from the parser's character buffer: no
     * {@code BigInteger}, no allocation on success.
     *
     * @param index the array element index for error messages, or -1 for a plain field
     */
    private static long readUnsigned(JsonParser p, JsonToken t, String name, int index, long max)
        throws IOException, WireException {
        if (t == JsonToken.VALUE_NUMBER_FLOAT) {
            throw bad(at(name, index), "must be an integer in " + range(max)
                + " without fraction or exponent, got " + abbreviate(p.getText(), 32));
        }
        if (t != JsonToken.VALUE_NUMBER_INT) {
            throw bad(at(name, index), "must be an unsigned integer, got " + describe(t));
        }
        char[] c = p.getTextCharacters();
        int off = p.getTextOffset();
        int len = p.getTextLength();
        if (len > 0 && c[off] == '-') {
            throw bad(at(name, index), "must not be negative, got " + abbreviate(p.getText(), 32));
        }
        if (len == 0 || len > 20) {
            throw bad(at(name, index), "out of range " + range(max) + ": " + abbreviate(p.getText(), 32));
        }
        long v = 0;
        for (int i = off, end = off + len; i < end; i++) {
            int d = c[i] - '0';
            if (d < 0 || d > 9) {
                throw bad(at(name, index), "must be an unsigned integer, got " + abbreviate(p.getText(), 32));
            }
            // v * 10 + d must not exceed 2^64-1 = 18446744073709551615
            if (Long.compareUnsigned(v, 1844674407370955161L) > 0 || (v == 1844674407370955161L && d > 5)) {
                throw bad(at(name, index), "out of range " + range(max) + ": " + abbreviate(p.getText(), 32));
            }
            v = v * 10 + d;
        }
        if (Long.compareUnsigned(v, max) > 0) {
            throw bad(at(name, index), "out of range " + range(max) + ": " + Long.toUnsignedString(v));
        }
        return v;
    }

    private static String at(String name, int index) {
        return index < 0 ? name : name + "[" + index + "]";
    }

    private static String range(long max) {
        return "0.." + Long.toUnsignedString(max);
    }

    private static WireException bad(String name, String detail) {
        return new WireException(WireError.BAD_FIELD, name + ": " + detail);
    }

    private static String describe(JsonToken t) {
        if (t == null) {
            return "end of input";
        }
        switch (t) {
            case START_OBJECT: return "an object";
            case START_ARRAY: return "an array";
            case VALUE_STRING: return "a string";
            case VALUE_NUMBER_INT: return "an integer";
            case VALUE_NUMBER_FLOAT: return "a number with fraction or exponent";
            case VALUE_TRUE:
            case VALUE_FALSE: return "a boolean";
            case VALUE_NULL: return "null";
            default: return t.toString();
        }
    }

    static String abbreviate(String s, int max) {
        if (s == null) {
            return "null";
        }
        return s.length() <= max ? s : s.substring(0, max) + "...";
    }
}
