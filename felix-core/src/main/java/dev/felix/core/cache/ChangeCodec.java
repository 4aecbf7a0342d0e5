package dev.felix.core.cache;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The payload of one log record of a log cache: one {@link Change}. The record's log offset is the
 * change's offset, so the offset is not repeated. Big-endian, version 1:
 *
 * <pre>
 *  0      1  version            1 (anything else is refused)
 *  1      1  op                 0 PUT, 1 DELETE, 2 EXPIRE, 3 EVICT
 *  2      8  expires_at_millis  PUT: absolute epoch ms, Long.MAX_VALUE = never; others: Long.MAX_VALUE
 * 10      4  key_len            UTF-8 bytes of the key, 1 .. {@link #MAX_KEY_BYTES}
 * 14      k  key                UTF-8
 * 14+k    v  value              PUT: the rest of the payload (may be empty); others: nothing
 * </pre>
 *
 * The log checksums every record, so this format carries no checksum of its own; a payload that does not
 * parse is corruption. Stateless; thread-safe.
 */
final class ChangeCodec {

    static final byte VERSION = 1;
    /** Bytes before the key. */
    static final int HEADER_BYTES = 14;
    /** Largest UTF-8 key: {@link Cache#MAX_KEY_LENGTH} characters of at most 3 bytes each. */
    static final int MAX_KEY_BYTES = 3 * Cache.MAX_KEY_LENGTH;

    private ChangeCodec() {
    }

    /** Largest payload for values of up to {@code maxValueBytes}. */
    static int maxPayloadBytes(int maxValueBytes) {
        return HEADER_BYTES + MAX_KEY_BYTES + maxValueBytes;
    }

    static byte[] encode(Change c) {
        byte[] key = c.key().getBytes(StandardCharsets.UTF_8);
        byte[] value = c.op() == Change.Op.PUT ? c.value() : null;
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + key.length + (value == null ? 0 : value.length));
        b.put(VERSION);
        b.put((byte) c.op().ordinal());
        b.putLong(c.op() == Change.Op.PUT ? c.expiresAtMillis() : CacheEntry.NEVER);
        b.putInt(key.length);
        b.put(key);
        if (value != null) {
            b.put(value);
        }
        return b.array();
    }

    /**
     * Decodes the record at {@code offset}.
     *
     * @throws IllegalArgumentException naming what is wrong, when the payload is not a valid change
     */
    static Change decode(long offset, byte[] payload) {
        if (payload.length < HEADER_BYTES) {
            throw new IllegalArgumentException("change record at offset " + offset + " has " + payload.length
                    + " bytes, fewer than its " + HEADER_BYTES + "-byte header");
        }
        ByteBuffer b = ByteBuffer.wrap(payload);
        byte version = b.get();
        if (version != VERSION) {
            throw new IllegalArgumentException("change record at offset " + offset + " has version " + version
                    + "; this build reads version " + VERSION);
        }
        int opCode = b.get();
        Change.Op[] ops = Change.Op.values();
        if (opCode < 0 || opCode >= ops.length) {
            throw new IllegalArgumentException("change record at offset " + offset + " has unknown op " + opCode);
        }
        Change.Op op = ops[opCode];
        long expiresAt = b.getLong();
        int keyLen = b.getInt();
        if (keyLen < 1 || keyLen > MAX_KEY_BYTES || keyLen > b.remaining()) {
            throw new IllegalArgumentException("change record at offset " + offset + " has key length " + keyLen
                    + " (payload " + payload.length + " bytes)");
        }
        String key = utf8(payload, HEADER_BYTES, keyLen, "change record at offset " + offset);
        b.position(HEADER_BYTES + keyLen);
        byte[] value = null;
        if (op == Change.Op.PUT) {
            value = new byte[b.remaining()];
            b.get(value);
        } else {
            if (b.hasRemaining()) {
                throw new IllegalArgumentException("change record at offset " + offset + " (" + op
                        + ") carries " + b.remaining() + " unexpected value bytes");
            }
            expiresAt = CacheEntry.NEVER;
        }
        return new Change(offset, key, op, value, expiresAt);
    }

    /** Strict UTF-8 decoding: malformed bytes are corruption, not replacement characters. */
    static String utf8(byte[] bytes, int from, int len, String where) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, from, len)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(where + ": the key is not valid UTF-8");
        }
    }
}
