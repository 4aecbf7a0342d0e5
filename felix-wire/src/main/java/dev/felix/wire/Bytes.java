package dev.felix.wire;

import java.util.Arrays;
import java.util.List;

/** equals/hashCode/toString helpers for records holding {@code byte[]}. Package-private. */
final class Bytes {
    private Bytes() {
    }

    static boolean listEquals(List<byte[]> a, List<byte[]> b) {
        if (a == b) {
            return true;
        }
        if (a == null || b == null || a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!Arrays.equals(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    static int listHash(List<byte[]> a) {
        if (a == null) {
            return 0;
        }
        int h = 1;
        for (byte[] b : a) {
            h = 31 * h + Arrays.hashCode(b);
        }
        return h;
    }

    /** {@code byte[5]} or {@code null}: lengths only, never contents (payloads may be large or secret). */
    static String describe(byte[] b) {
        return b == null ? "null" : "byte[" + b.length + "]";
    }

    /** {@code [3 payloads, 120 bytes]}. */
    static String describe(List<byte[]> list) {
        if (list == null) {
            return "null";
        }
        long total = 0;
        for (byte[] b : list) {
            total += b.length;
        }
        return "[" + list.size() + " payloads, " + total + " bytes]";
    }

    static String u64(Long v) {
        return v == null ? "null" : Long.toUnsignedString(v);
    }

    static String u32(Integer v) {
        return v == null ? "null" : Integer.toUnsignedString(v);
    }
}
