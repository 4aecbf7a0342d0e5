package dev.felix.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.quic.Quic;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The product carries Netty's native QUIC library for every platform Netty publishes it for (so the
 * broker and SDK run on Linux x86-64 and aarch64, macOS x86-64 and Apple silicon, Windows x86-64), and
 * the one for this machine loads.
 */
class QuicNativeLibrariesTest {

    @Test
    void everyPublishedPlatformsLibraryIsOnTheClasspath() {
        List<String> libraries = List.of(
                "META-INF/native/libnetty_quiche42_linux_x86_64.so",
                "META-INF/native/libnetty_quiche42_linux_aarch_64.so",
                "META-INF/native/libnetty_quiche42_osx_x86_64.jnilib",
                "META-INF/native/libnetty_quiche42_osx_aarch_64.jnilib",
                "META-INF/native/netty_quiche42_windows_x86_64.dll",
                "META-INF/native/libnetty_transport_native_epoll_x86_64.so",
                "META-INF/native/libnetty_transport_native_epoll_aarch_64.so");
        for (String library : libraries) {
            assertThat(QuicNativeLibrariesTest.class.getClassLoader().getResource(library)).as(library).isNotNull();
        }
    }

    @Test
    void theLibraryForThisMachineLoads() {
        assertThat(Quic.isAvailable()).as(String.valueOf(Quic.unavailabilityCause())).isTrue();
    }
}
