package dev.felix.wire;

import static dev.felix.wire.TestSupport.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Strict UTF-8 validation (RFC 3629), which the JDK decoder does not do. */
class Utf8Test {

    static boolean valid(String hex) {
        byte[] b = hex(hex);
        return Utf8.firstInvalid(b, 0, b.length) < 0;
    }

    @Test
    void acceptsWellFormedSequencesAtEveryBoundary() {
        assertThat(valid("")).isTrue();
        assertThat(valid("00 7f")).isTrue();
        assertThat(valid("c280 dfbf")).isTrue();               // U+0080, U+07FF
        assertThat(valid("e0a080 ed9fbf ee8080 efbfbf")).isTrue(); // U+0800, U+D7FF, U+E000, U+FFFF
        assertThat(valid("f0908080 f48fbfbf")).isTrue();       // U+10000, U+10FFFF
        byte[] all = "aé€😀".getBytes(StandardCharsets.UTF_8);
        assertThat(Utf8.firstInvalid(all, 0, all.length)).isNegative();
    }

    @Test
    void rejectsMalformedSequences() {
        assertThat(valid("80")).isFalse();           // stray continuation
        assertThat(valid("c0af")).isFalse();         // overlong
        assertThat(valid("c1bf")).isFalse();         // overlong
        assertThat(valid("e080af")).isFalse();       // overlong 3-byte
        assertThat(valid("f08080af")).isFalse();     // overlong 4-byte
        assertThat(valid("eda080")).isFalse();       // surrogate D800
        assertThat(valid("edbfbf")).isFalse();       // surrogate DFFF
        assertThat(valid("f4908080")).isFalse();     // above U+10FFFF
        assertThat(valid("f5808080")).isFalse();
        assertThat(valid("ff")).isFalse();
        assertThat(valid("c2")).isFalse();           // truncated
        assertThat(valid("e282")).isFalse();         // truncated
        assertThat(valid("f09f98")).isFalse();       // truncated
        assertThat(valid("c241")).isFalse();         // bad continuation
        byte[] b = hex("41 42 c0af 43");
        assertThat(Utf8.firstInvalid(b, 0, b.length)).isEqualTo(2);
    }

    @Test
    void nulIsValidUtf8UnlessRejectedOnRequest() {
        byte[] b = hex("41 00 42");
        assertThat(Utf8.firstInvalid(b, 0, 3)).isNegative();
        assertThat(Utf8.firstInvalid(b, 0, 3, true)).isEqualTo(1);
    }

    @Test
    void encodingRefusesLoneSurrogates() {
        assertThat(Utf8.encode("a😀", "f")).isEqualTo("a😀".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> Utf8.encode("a\uD800", "f")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Utf8.encode("\uDC00a", "f")).isInstanceOf(IllegalArgumentException.class);
        assertThat(Utf8.firstLoneSurrogate("\uD83D\uDE00")).isNegative();
        assertThat(Utf8.firstLoneSurrogate("x\uDE00\uD83D")).isEqualTo(1);
    }
}
