package dev.felix.wire;

import static dev.felix.wire.TestSupport.rejects;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The strict base64 decoder against the JDK encoder, and every non-canonical form it refuses. */
class Base64StrictTest {

    @Test
    void decodesEverythingTheStandardEncoderWritesForAllLengths() throws Exception {
        Random r = new Random(7);
        for (int len = 0; len < 300; len++) {
            byte[] b = new byte[len];
            r.nextBytes(b);
            String enc = Base64.getEncoder().encodeToString(b);
            assertThat(Base64Strict.decode(enc, "x")).isEqualTo(b);
        }
    }

    @Test
    void rejectsEveryNonCanonicalTrailingBitPattern() throws Exception {
        // one byte -> XY==; the low 4 bits of Y must be zero: exactly 1 of 16 values of Y is accepted per high part
        int accepted = 0;
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (char y : alphabet.toCharArray()) {
            String s = "Q" + y + "==";
            try {
                Base64Strict.decode(s, "x");
                accepted++;
            } catch (WireException e) {
                assertThat(e.error()).isEqualTo(WireError.BAD_BASE64);
            }
        }
        assertThat(accepted).isEqualTo(4);
        // two bytes -> XYZ=; low 2 bits of Z must be zero
        accepted = 0;
        for (char z : alphabet.toCharArray()) {
            try {
                Base64Strict.decode("QU" + z + "=", "x");
                accepted++;
            } catch (WireException e) {
                assertThat(e.error()).isEqualTo(WireError.BAD_BASE64);
            }
        }
        assertThat(accepted).isEqualTo(16);
    }

    @Test
    void rejectsUnpaddedUrlSafeWhitespaceAndStrayPadding() {
        for (String s : new String[] {"a", "ab", "abc", "abcde", "aGVsbG8", "-_-_", "ab_=", "ab c", "abc\n",
            "\tabc", "ab\r\n", "a=bc", "=abc", "ab==cdef", "abc==", "abcd=", "a\u00e9bc", "\u0000abc"}) {
            rejects(WireError.BAD_BASE64, () -> Base64Strict.decode(s, "field"));
        }
    }

    @Test
    void errorNamesFieldAndPosition() {
        WireException e = rejects(WireError.BAD_BASE64, () -> Base64Strict.decode("aGVs!G8=", "payload"));
        assertThat(e.getMessage()).contains("payload").contains("'!'").contains("char 4");
    }

    @Test
    void decodesFromARangeOfALargerCharArray() throws Exception {
        char[] c = "xxaGVsbG8=yy".toCharArray();
        assertThat(Base64Strict.decode(c, 2, 8, "x")).isEqualTo(TestSupport.utf8("hello"));
    }
}
