package dev.felix.bench.common;

/**
 * The 16-byte header every benchmark message starts with: its sequence number and the publisher's
 * {@link System#nanoTime()} when it was sent, big-endian. The payload sizes a benchmark names are the
 * bytes <em>after</em> this header, so a "0-byte" message is 16 bytes on the wire. Publisher and
 * subscribers share one JVM, so the clock is the same on both sides.
 */
public final class Stamp {

    public static final int BYTES = 16;

    private Stamp() {
    }

    /** A new message of {@code payload} bytes after the header. */
    public static byte[] message(int payload, long seq, long sentNanos) {
        byte[] m = new byte[BYTES + payload];
        putLong(m, 0, seq);
        putLong(m, 8, sentNanos);
        return m;
    }

    public static long seq(byte[] message) {
        return getLong(message, 0);
    }

    public static long sentNanos(byte[] message) {
        return getLong(message, 8);
    }

    /** The sequence number of the message between {@code message}'s position and limit (read in place). */
    public static long seq(java.nio.ByteBuffer message) {
        return message.getLong(message.position()); // big-endian: a ByteBuffer's default order
    }

    /** The send time of the message between {@code message}'s position and limit (read in place). */
    public static long sentNanos(java.nio.ByteBuffer message) {
        return message.getLong(message.position() + 8);
    }

    private static void putLong(byte[] b, int at, long v) {
        for (int i = 7; i >= 0; i--) {
            b[at + i] = (byte) v;
            v >>>= 8;
        }
    }

    private static long getLong(byte[] b, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[at + i] & 0xff);
        }
        return v;
    }
}
