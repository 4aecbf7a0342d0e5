package dev.felix.wire;

/**
 * Strict, canonical standard base64 (RFC 4648 §4, alphabet {@code A-Z a-z 0-9 + /}, {@code =}
 * padding), matching the Rust {@code base64} 0.22 {@code STANDARD} engine that upstream uses:
 * the length must be a multiple of 4, padding is required and only at the end, no URL-safe
 * characters, no whitespace or line breaks, and the unused bits of the last symbol must be zero
 * (so every byte string has exactly one accepted encoding). {@link java.util.Base64#getDecoder()}
 * accepts non-canonical trailing bits, hence this class.
 *
 * <p>One pass over the input, one allocation (the exactly sized output). Decodes straight from a
 * {@code char[]} range so the JSON parser's text buffer can be used without building a
 * {@code String}. Package-private; stateless.
 */
final class Base64Strict {
    private static final byte[] DECODE = new byte[128];

    static {
        java.util.Arrays.fill(DECODE, (byte) -1);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (int i = 0; i < alphabet.length(); i++) {
            DECODE[alphabet.charAt(i)] = (byte) i;
        }
    }

    private Base64Strict() {
    }

    /**
     * @param what the field name for error messages
     * @throws WireException {@link WireError#BAD_BASE64} naming the offending character position
     */
    static byte[] decode(char[] src, int off, int len, String what) throws WireException {
        if (len == 0) {
            return new byte[0];
        }
        if ((len & 3) != 0) {
            throw bad(what, "length " + len + " is not a multiple of 4 (padding is required)");
        }
        int pad = 0;
        if (src[off + len - 1] == '=') {
            pad = src[off + len - 2] == '=' ? 2 : 1;
        }
        int outLen = len / 4 * 3 - pad;
        byte[] out = new byte[outLen];
        int o = 0;
        int fullEnd = off + len - (pad == 0 ? 0 : 4); // quads without padding
        int i = off;
        while (i < fullEnd) {
            int v = (sym(src, i, off, what) << 18) | (sym(src, i + 1, off, what) << 12)
                | (sym(src, i + 2, off, what) << 6) | sym(src, i + 3, off, what);
            out[o++] = (byte) (v >>> 16);
            out[o++] = (byte) (v >>> 8);
            out[o++] = (byte) v;
            i += 4;
        }
        if (pad == 2) {
            int a = sym(src, i, off, what);
            int b = sym(src, i + 1, off, what);
            if ((b & 0x0F) != 0) {
                throw bad(what, "non-zero trailing bits at char " + (i + 1 - off));
            }
            out[o] = (byte) ((a << 2) | (b >>> 4));
        } else if (pad == 1) {
            int a = sym(src, i, off, what);
            int b = sym(src, i + 1, off, what);
            int c = sym(src, i + 2, off, what);
            if ((c & 0x03) != 0) {
                throw bad(what, "non-zero trailing bits at char " + (i + 2 - off));
            }
            int v = (a << 12) | (b << 6) | c;
            out[o++] = (byte) (v >>> 10);
            out[o] = (byte) (v >>> 2);
        }
        return out;
    }

    /** Convenience for tests and callers holding a String. */
    static byte[] decode(String s, String what) throws WireException {
        return decode(s.toCharArray(), 0, s.length(), what);
    }

    private static int sym(char[] src, int i, int off, String what) throws WireException {
        char c = src[i];
        int v = c < 128 ? DECODE[c] : -1;
        if (v < 0) {
            String shown = c == '=' ? "misplaced padding '='"
                : (c > 0x20 && c < 0x7F ? "invalid character '" + c + "'"
                : String.format("invalid character U+%04X", (int) c));
            throw bad(what, shown + " at char " + (i - off));
        }
        return v;
    }

    private static WireException bad(String what, String detail) {
        return new WireException(WireError.BAD_BASE64, what + ": bad base64: " + detail);
    }
}
