package dev.felix.demos.divergence;

import java.nio.ByteBuffer;

/**
 * One change on the wire, big-endian: {@code u16 key, u64 version, u64 value}, zero padded to the
 * payload size. The event carries its own version so consumers can apply last-writer-wins.
 */
record ChangePayload(int key, long version, long value) {

    static final int HEADER_BYTES = 18;

    byte[] encode(int payloadBytes) {
        ByteBuffer b = ByteBuffer.allocate(Math.max(payloadBytes, HEADER_BYTES));
        b.putShort((short) key).putLong(version).putLong(value);
        return b.array(); // the rest is already zero
    }

    /** The change, or null if the payload is too short or names a key outside the keyspace. */
    static ChangePayload decode(byte[] payload, int keys) {
        if (payload.length < HEADER_BYTES) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(payload);
        int key = Short.toUnsignedInt(b.getShort());
        if (key >= keys) {
            return null;
        }
        return new ChangePayload(key, b.getLong(), b.getLong());
    }
}
