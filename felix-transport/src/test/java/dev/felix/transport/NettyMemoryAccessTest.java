package dev.felix.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.Test;

/** The banner's line about how Netty reaches direct memory: what it says either way, and that it reads this JVM. */
class NettyMemoryAccessTest {

    @Test
    void withUnsafe_itSaysSo() {
        NettyMemoryAccess.Report r = NettyMemoryAccess.report(true, null);

        assertThat(r.unsafe()).isTrue();
        assertThat(r.text()).isEqualTo("direct buffers through sun.misc.Unsafe");
    }

    @Test
    void withoutUnsafe_itSaysWhyAndWhichOptionTurnsItOn() {
        NettyMemoryAccess.Report r = NettyMemoryAccess.report(false,
                new UnsupportedOperationException("sun.misc.Unsafe: unavailable (io.netty.noUnsafe=true by default on"
                        + " Java 25+)"));

        assertThat(r.unsafe()).isFalse();
        assertThat(r.text()).startsWith("direct buffers through ByteBuffer views (")
                .contains("io.netty.noUnsafe=true by default on Java 25+")
                .endsWith("; --sun-misc-unsafe-memory-access=allow turns Unsafe on)");
        assertThat(NettyMemoryAccess.report(false, null).text()).contains("(Unsafe unavailable;");
    }

    @Test
    void currentReadsThisJvm() {
        assertThat(NettyMemoryAccess.current().unsafe()).isEqualTo(PlatformDependent.hasUnsafe());
    }
}
