package dev.felix.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@link TransportConfig}'s builder: defaults equal the documented constants, every bad value is refused at the call
 * with a message naming the option and the value, and built values are equal by value.
 */
class ConfigBuildersTest {

    @Test
    void defaults_equalTheDocumentedConstants() {
        TransportConfig c = TransportConfig.builder().build();
        assertThat(c.connectionWindowBytes()).isEqualTo(TransportConfig.DEFAULT_CONNECTION_WINDOW).isEqualTo(64L << 20);
        assertThat(c.streamWindowBytes()).isEqualTo(TransportConfig.DEFAULT_STREAM_WINDOW).isEqualTo(16L << 20);
        assertThat(c.maxBidiStreams()).isEqualTo(TransportConfig.DEFAULT_MAX_STREAMS).isEqualTo(4096);
        assertThat(c.maxUniStreams()).isEqualTo(TransportConfig.DEFAULT_MAX_STREAMS);
        assertThat(c.idleTimeout()).isEqualTo(TransportConfig.DEFAULT_IDLE_TIMEOUT).isEqualTo(Duration.ofSeconds(60));
        assertThat(c.maxUdpPayloadBytes()).isEqualTo(TransportConfig.AUTOMATIC_UDP_PAYLOAD).isZero();
        assertThat(c.ioThreads()).isEqualTo(TransportConfig.DEFAULT_IO_THREADS).isZero();
        assertThat(c).isEqualTo(TransportConfig.defaults());
    }

    @Test
    void automaticUdpPayload_dependsOnThePeer_anExplicitOneDoesNot() {
        TransportConfig auto = TransportConfig.defaults();
        assertThat(auto.udpPayloadFor(InetAddress.getLoopbackAddress())).isEqualTo(TransportConfig.LOOPBACK_UDP_PAYLOAD);
        assertThat(auto.udpPayloadFor(null)).isEqualTo(TransportConfig.DEFAULT_MAX_UDP_PAYLOAD);
        TransportConfig fixed = TransportConfig.builder().maxUdpPayloadBytes(1500).build();
        assertThat(fixed.udpPayloadFor(InetAddress.getLoopbackAddress())).isEqualTo(1500);
    }

    @Test
    void badValues_areRefusedAtTheCall_namingTheOption() {
        refused(() -> TransportConfig.builder().connectionWindowBytes(0), "connection_window_bytes", "0");
        refused(() -> TransportConfig.builder().streamWindowBytes(-1), "stream_window_bytes", "-1");
        refused(() -> TransportConfig.builder().maxBidiStreams(0), "max_bidi_streams", "0");
        refused(() -> TransportConfig.builder().maxUniStreams(0), "max_uni_streams", "0");
        refused(() -> TransportConfig.builder().maxStreams(0), "max_bidi_streams", "0");
        refused(() -> TransportConfig.builder().idleTimeout(Duration.ZERO), "idle_timeout", "PT0S");
        refused(() -> TransportConfig.builder().idleTimeout(null), "idle_timeout", "null");
        refused(() -> TransportConfig.builder().maxUdpPayloadBytes(1199), "max_udp_payload_bytes", "1199");
        refused(() -> TransportConfig.builder().maxUdpPayloadBytes(65528), "max_udp_payload_bytes", "65528");
        refused(() -> TransportConfig.builder().ioThreads(-1), "io_threads", "-1");
        assertThatThrownBy(() -> new TransportConfig(1, 1, 1, 1, Duration.ofSeconds(1), 5, 0))
                .hasMessageContaining("max_udp_payload_bytes").hasMessageContaining("5");
    }

    @Test
    void toBuilder_roundTrips_andWithersMatchTheBuilder() {
        TransportConfig c = TransportConfig.builder().streamWindowBytes(1024).maxStreams(10).ioThreads(2)
                .idleTimeout(Duration.ofSeconds(5)).build();
        assertThat(c.maxBidiStreams()).isEqualTo(10);
        assertThat(c.maxUniStreams()).isEqualTo(10);
        assertThat(c.toBuilder().build()).isEqualTo(c).hasSameHashCodeAs(c);
        assertThat(c.withIdleTimeout(Duration.ofSeconds(9))).isEqualTo(
                c.toBuilder().idleTimeout(Duration.ofSeconds(9)).build()).isNotEqualTo(c);
        TransportConfig.Builder b = TransportConfig.builder().ioThreads(1);
        TransportConfig first = b.build();
        b.ioThreads(3);
        assertThat(first.ioThreads()).isEqualTo(1);
    }

    private static void refused(Supplier<?> call, String option, String value) {
        assertThatThrownBy(call::get).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(option).hasMessageContaining(value);
    }
}
