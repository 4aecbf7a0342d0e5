package dev.felix.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Strict UTF-8 (RFC 3629): rejects overlong forms, encoded surrogates ({@code ED A0..BF}), code
 * points above U+10FFFF, stray continuation bytes and truncated sequences; the JDK decoder would
 * silently substitute U+FFFD instead. Package-private; stateless.
 */
final class Utf8 {
    private Utf8() {
    }

    /**
     * Returns the index of the first byte that is not part of well-formed UTF-8, or {@code -1} when
     * {@code a[off..off+len)} is valid. ASCII runs take a fast path.
     */
    static int firstInvalid(byte[] a, int off, int len) {
        return firstInvalid(a, off, len, false);
    }

    /** As {@link #firstInvalid(byte[], int, int)}; with {@code rejectNul} a 0x00 byte also counts as invalid. */
    static int firstInvalid(byte[] a, int off, int len, boolean rejectNul) {
        int i = off;
        int end = off + len;
        while (i < end) {
            int b = a[i];
            if (b > 0 || (b == 0 && !rejectNul)) {
                i++;
                continue;
            }
            if (b == 0) {
                return i;
            }
            int n = sequenceLength(a, i, end);
            if (n < 0) {
                return i;
            }
            i += n;
        }
        return -1;
    }

    /** Length of the valid multi-byte sequence starting at {@code a[i]} (a non-ASCII lead), or -1. */
    private static int sequenceLength(byte[] a, int i, int end) {
        int b0 = a[i] & 0xFF;
        if (b0 >= 0xC2 && b0 <= 0xDF) {
            return (i + 1 < end && cont(a[i + 1])) ? 2 : -1;
        }
        if (b0 >= 0xE0 && b0 <= 0xEF) {
            if (i + 2 >= end) {
                return -1;
            }
            int b1 = a[i + 1] & 0xFF;
            int lo = b0 == 0xE0 ? 0xA0 : 0x80;   // E0: no overlong forms
            int hi = b0 == 0xED ? 0x9F : 0xBF;   // ED: no surrogates
            return (b1 >= lo && b1 <= hi && cont(a[i + 2])) ? 3 : -1;
        }
        if (b0 >= 0xF0 && b0 <= 0xF4) {
            if (i + 3 >= end) {
                return -1;
            }
            int b1 = a[i + 1] & 0xFF;
            int lo = b0 == 0xF0 ? 0x90 : 0x80;   // F0: no overlong forms
            int hi = b0 == 0xF4 ? 0x8F : 0xBF;   // F4: nothing above U+10FFFF
            return (b1 >= lo && b1 <= hi && cont(a[i + 2]) && cont(a[i + 3])) ? 4 : -1;
        }
        return -1; // 80..C1 (continuation or overlong lead) and F5..FF
    }

    private static boolean cont(byte b) {
        return (b & 0xC0) == 0x80;
    }

    /**
     * Decodes strictly.
     *
     * @param what field name for the error message
     * @throws WireException {@link WireError#BAD_UTF8} naming the byte offset of the first bad byte
     */
    static String decode(byte[] a, int off, int len, String what) throws WireException {
        int bad = firstInvalid(a, off, len);
        if (bad >= 0) {
            throw new WireException(WireError.BAD_UTF8,
                what + ": invalid UTF-8 at byte " + (bad - off) + " of " + len);
        }
        return new String(a, off, len, StandardCharsets.UTF_8);
    }

    /** Index of the first unpaired surrogate in {@code s}, or -1 (a Java string is not always valid Unicode). */
    static int firstLoneSurrogate(CharSequence s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return i;
                }
            }
        }
        return -1;
    }

    /**
     * Encodes a string that must be valid Unicode.
     *
     * @throws IllegalArgumentException if {@code s} holds an unpaired surrogate (the JDK would
     *                                  silently write {@code ?})
     */
    static byte[] encode(String s, String what) {
        int bad = firstLoneSurrogate(s);
        if (bad >= 0) {
            throw new IllegalArgumentException(what + ": unpaired surrogate at char " + bad);
        }
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Copies {@code len} bytes at absolute {@code index} of {@code b} (position untouched). */
    static byte[] copy(ByteBuffer b, int index, int len) {
        byte[] out = new byte[len];
        b.get(index, out, 0, len);
        return out;
    }
}
