package dev.felix.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.Test;

/** The banner's line about how Netty reaches direct memory: what it says either way, and that it reads this JVM. */
class NettyMemoryAccessTest {

    @Test
    void withUnsafe_andOwnAllocation_itSaysSo() {
        NettyMemoryAccess.Report r = NettyMemoryAccess.report(true, true, null);

        assertThat(r.unsafe()).isTrue();
        assertThat(r.ownAllocation()).isTrue();
        assertThat(r.text()).isEqualTo("direct buffers through sun.misc.Unsafe, allocated by Netty (not zero-filled)");
    }

    @Test
    void withUnsafe_butJdkAllocation_itNamesTheOptionsThatLetNettyAllocate() {
        NettyMemoryAccess.Report r = NettyMemoryAccess.report(true, false, null);

        assertThat(r.ownAllocation()).isFalse();
        assertThat(r.text()).isEqualTo("direct buffers through sun.misc.Unsafe, allocated by the JDK (zero-filled;"
                + " --add-opens=java.base/java.nio=ALL-UNNAMED -Dio.netty.tryReflectionSetAccessible=true lets Netty"
                + " allocate them)");
    }

    @Test
    void withoutUnsafe_itSaysWhyAndWhichOptionTurnsItOn() {
        NettyMemoryAccess.Report r = NettyMemoryAccess.report(false, false,
                new UnsupportedOperationException("sun.misc.Unsafe: unavailable (io.netty.noUnsafe=true by default on"
                        + " Java 25+)"));

        assertThat(r.unsafe()).isFalse();
        assertThat(r.text()).startsWith("direct buffers through ByteBuffer views (")
                .contains("io.netty.noUnsafe=true by default on Java 25+")
                .endsWith("; --sun-misc-unsafe-memory-access=allow turns Unsafe on), allocated by the JDK (zero-filled)");
        assertThat(NettyMemoryAccess.report(false, false, null).text()).contains("(Unsafe unavailable;");
    }

    @Test
    void currentReadsThisJvm() {
        NettyMemoryAccess.Report r = NettyMemoryAccess.current();
        assertThat(r.unsafe()).isEqualTo(PlatformDependent.hasUnsafe());
        assertThat(r.ownAllocation()).isEqualTo(PlatformDependent.useDirectBufferNoCleaner());
    }
}
