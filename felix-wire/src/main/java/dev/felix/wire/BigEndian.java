package dev.felix.wire;

import java.nio.ByteBuffer;

/**
 * Absolute big-endian reads and writes that ignore the buffer's own {@link ByteBuffer#order()}, so
 * a caller's little-endian buffer can never silently corrupt a frame. Package-private helper.
 */
final class BigEndian {
    private BigEndian() {
    }

    static int u8(ByteBuffer b, int i) {
        return b.get(i) & 0xFF;
    }

    static int u16(ByteBuffer b, int i) {
        return ((b.get(i) & 0xFF) << 8) | (b.get(i + 1) & 0xFF);
    }

    static int i32(ByteBuffer b, int i) {
        return ((b.get(i) & 0xFF) << 24) | ((b.get(i + 1) & 0xFF) << 16)
            | ((b.get(i + 2) & 0xFF) << 8) | (b.get(i + 3) & 0xFF);
    }

    static long u32(ByteBuffer b, int i) {
        return i32(b, i) & 0xFFFF_FFFFL;
    }

    static long i64(ByteBuffer b, int i) {
        return ((long) i32(b, i) << 32) | (i32(b, i + 4) & 0xFFFF_FFFFL);
    }

    static void put8(ByteBuffer b, int v) {
        b.put((byte) v);
    }

    static void put16(ByteBuffer b, int v) {
        b.put((byte) (v >>> 8)).put((byte) v);
    }

    static void put32(ByteBuffer b, int v) {
        b.put((byte) (v >>> 24)).put((byte) (v >>> 16)).put((byte) (v >>> 8)).put((byte) v);
    }

    static void put64(ByteBuffer b, long v) {
        put32(b, (int) (v >>> 32));
        put32(b, (int) v);
    }
}
