package dev.felix.client;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

/**
 * The self-checking payloads of {@link ChurnLeakSoakTest}: every event and cache value says who wrote it and in
 * which order, and carries a checksum of its body, so a reader detects a corrupted, truncated, swapped or
 * reordered delivery, not only a leak.
 *
 * <pre>
 *  0      4  magic     0xFE11C5AA
 *  4      4  source    the publisher (events) or the key (cache values) it belongs to
 *  8      8  seq       the writer's sequence number (events: increasing per publisher)
 *  16     4  crc32     of the body
 *  20     n  body      pseudo-random bytes seeded by source and seq
 * </pre>
 *
 * A payload of 0 bytes is also valid (the empty event); it carries nothing to check. Stateless, thread-safe.
 */
final class SoakPayload {

    static final int MAGIC = 0xFE11C5AA;
    static final int HEADER = 20;

    /** What a valid non-empty payload says about itself. */
    record Stamp(int source, long seq) {
    }

    private SoakPayload() {
    }

    /** A payload of {@code size} bytes (0, or at least {@link #HEADER}: smaller sizes are rounded up). */
    static byte[] of(int source, long seq, int size) {
        if (size == 0) {
            return new byte[0];
        }
        byte[] b = new byte[Math.max(size, HEADER)];
        new SplittableRandom(seed(source, seq)).nextBytes(b); // header bytes are overwritten below
        CRC32 crc = new CRC32();
        crc.update(b, HEADER, b.length - HEADER);
        ByteBuffer.wrap(b).putInt(MAGIC).putInt(source).putLong(seq).putInt((int) crc.getValue());
        return b;
    }

    /**
     * The stamp of {@code payload}, null for the empty payload.
     *
     * @throws IllegalStateException naming what is wrong, if the payload is not one {@link #of} made intact
     */
    static Stamp check(byte[] payload) {
        if (payload.length == 0) {
            return null;
        }
        if (payload.length < HEADER) {
            throw new IllegalStateException("a " + payload.length + "-byte payload, shorter than the header");
        }
        ByteBuffer b = ByteBuffer.wrap(payload);
        int magic = b.getInt();
        int source = b.getInt();
        long seq = b.getLong();
        int crc = b.getInt();
        if (magic != MAGIC) {
            throw new IllegalStateException("bad magic " + Integer.toHexString(magic) + " in a " + payload.length
                    + "-byte payload");
        }
        CRC32 actual = new CRC32();
        actual.update(payload, HEADER, payload.length - HEADER);
        if ((int) actual.getValue() != crc) {
            throw new IllegalStateException("checksum mismatch in the " + payload.length + "-byte payload of source "
                    + source + " seq " + seq);
        }
        return new Stamp(source, seq);
    }

    private static long seed(int source, long seq) {
        return ((long) source << 40) ^ seq * 0x9E3779B97F4A7C15L;
    }
}
