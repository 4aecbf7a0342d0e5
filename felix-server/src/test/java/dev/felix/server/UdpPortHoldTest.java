package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.server.config.ConfigException;
import java.net.BindException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** A port chosen for a setting given as 0 stays out of everyone else's reach until its server is about to bind it. */
class UdpPortHoldTest {

    @Test
    void aHeldPort_cannotBeBoundByAnyoneElse_untilItIsReleased_thenItCan() throws Exception {
        try (UdpPortHold hold = UdpPortHold.take("127.0.0.1", "quic_bind")) {
            assertThat(hold.port()).isPositive();
            assertThat(hold.held()).isTrue();
            assertThatThrownBy(() -> new DatagramSocket(new InetSocketAddress("127.0.0.1", hold.port())).close())
                    .as("another socket asking for the held port")
                    .isInstanceOf(BindException.class);

            hold.release();
            hold.release(); // idempotent: a failed start and a close may both release
            assertThat(hold.held()).isFalse();
            try (DatagramSocket server = new DatagramSocket(new InetSocketAddress("127.0.0.1", hold.port()))) {
                assertThat(server.getLocalPort()).as("the server binds the port it was told").isEqualTo(hold.port());
            }
        }
    }

    @Test
    void aHostThatCannotBeBound_isAConfigurationErrorNamingTheSetting() {
        assertThatThrownBy(() -> UdpPortHold.take("192.0.2.1", "peer_bind"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("peer_bind")
                .hasMessageContaining("192.0.2.1");
    }
}
