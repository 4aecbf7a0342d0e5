package dev.felix.wire;

import java.io.OutputStream;
import java.util.Arrays;

/**
 * A growable byte array that can reserve room for a frame header in front of what is written.
 * Package-private; single-threaded.
 */
final class ByteSink extends OutputStream {
    private byte[] buf;
    private int len;

    ByteSink(int reserved, int initialCapacity) {
        buf = new byte[Math.max(initialCapacity, reserved + 16)];
        len = reserved;
    }

    private void ensure(int extra) {
        int need = len + extra;
        if (need < 0) {
            throw new OutOfMemoryError("encoded frame exceeds 2 GiB");
        }
        if (need > buf.length) {
            int cap = Math.max(need, buf.length < (1 << 30) ? buf.length << 1 : Integer.MAX_VALUE - 16);
            buf = Arrays.copyOf(buf, cap);
        }
    }

    @Override
    public void write(int b) {
        ensure(1);
        buf[len++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int n) {
        ensure(n);
        System.arraycopy(b, off, buf, len, n);
        len += n;
    }

    int length() {
        return len;
    }

    byte[] array() {
        return buf;
    }

    byte[] toByteArray() {
        return buf.length == len ? buf : Arrays.copyOf(buf, len);
    }
}
