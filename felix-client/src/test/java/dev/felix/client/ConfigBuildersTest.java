package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.transport.ClientTrust;
import dev.felix.transport.TransportConfig;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@link ClientConfig}'s builder: defaults equal the documented constants, every bad value is refused at the call
 * with a message naming the option and the value, and a built config does not change when its builder does.
 */
class ConfigBuildersTest {

    private static final ClientTrust TRUST = ClientTrust.pinnedFingerprint("00".repeat(32));

    @Test
    void defaults_equalTheDocumentedConstants() {
        ClientConfig c = ClientConfig.builder(TRUST).build();
        assertThat(c.broker).isEqualTo(ClientConfig.DEFAULT_BROKER).isEqualTo(new InetSocketAddress("127.0.0.1", 5000));
        assertThat(c.serverName).isEqualTo("localhost"); // what a development certificate names, for loopback
        assertThat(c.tenant).isEqualTo(ClientConfig.DEFAULT_TENANT).isEqualTo("t1");
        assertThat(c.token).isEqualTo(ClientConfig.DEFAULT_TOKEN).isEqualTo("dev");
        assertThat(c.transport).isEqualTo(ClientConfig.DEFAULT_TRANSPORT)
                .isEqualTo(TransportConfig.defaults().withIdleTimeout(Duration.ofSeconds(15)));
        assertThat(c.maxFrameBytes).isEqualTo(ClientConfig.DEFAULT_MAX_FRAME_BYTES).isEqualTo(16 << 20);
        assertThat(c.connectTimeout).isEqualTo(ClientConfig.DEFAULT_CONNECT_TIMEOUT).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.requestTimeout).isEqualTo(ClientConfig.DEFAULT_REQUEST_TIMEOUT).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.keepAlive).isEqualTo(ClientConfig.DEFAULT_KEEP_ALIVE).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.publishInflightBytes).isEqualTo(ClientConfig.DEFAULT_PUBLISH_INFLIGHT_BYTES).isEqualTo(4L << 20);
        assertThat(c.publishInflightEvents).isEqualTo(ClientConfig.DEFAULT_PUBLISH_INFLIGHT_EVENTS).isEqualTo(16_384);
        assertThat(c.publishQueuePolicy).isEqualTo(ClientConfig.DEFAULT_PUBLISH_QUEUE_POLICY)
                .isEqualTo(PublishQueuePolicy.BLOCK);
        assertThat(c.receiveQueueEvents).isEqualTo(ClientConfig.DEFAULT_RECEIVE_QUEUE_EVENTS).isEqualTo(8192);
        assertThat(c.receiveQueueBytes).isEqualTo(ClientConfig.DEFAULT_RECEIVE_QUEUE_BYTES).isEqualTo(16L << 20);
        assertThat(c.receivePolicy).isEqualTo(ClientConfig.DEFAULT_RECEIVE_POLICY).isEqualTo(ReceivePolicy.BLOCK);
        assertThat(c.multiplexSubscriptions).isEqualTo(ClientConfig.DEFAULT_MULTIPLEX_SUBSCRIPTIONS).isTrue();
        assertThat(c.handlerThreads).isEqualTo(Runtime.getRuntime().availableProcessors());
    }

    @Test
    void badValues_areRefusedAtTheCall_namingTheOption() {
        ClientConfig.Builder b = ClientConfig.builder(TRUST);
        refused(() -> ClientConfig.builder(null), "trust", "null");
        refused(() -> b.broker(null), "broker", "null");
        refused(() -> b.serverName(null), "serverName", "null");
        refused(() -> b.tenant(null), "tenant", "null");
        refused(() -> b.token(null), "token", "null");
        refused(() -> b.transport(null), "transport", "null");
        refused(() -> b.maxFrameBytes(1023), "maxFrameBytes", "1023");
        refused(() -> b.connectTimeout(Duration.ZERO), "connectTimeout", "PT0S");
        refused(() -> b.requestTimeout(Duration.ofSeconds(-1)), "requestTimeout", "PT-1S");
        refused(() -> b.keepAlive(null), "keepAlive", "null");
        refused(() -> b.publishInflightBytes(0), "publishInflightBytes", "0");
        refused(() -> b.publishQueue(0, 1, PublishQueuePolicy.BLOCK), "publishQueue events", "0");
        refused(() -> b.publishQueue(1, -2, PublishQueuePolicy.BLOCK), "publishQueue bytes", "-2");
        refused(() -> b.publishQueue(1, 1, null), "publishQueue policy", "null");
        refused(() -> b.receiveQueue(0, 1, ReceivePolicy.BLOCK), "receiveQueue events", "0");
        refused(() -> b.receiveQueue(1, 0, ReceivePolicy.BLOCK), "receiveQueue bytes", "0");
        refused(() -> b.receiveQueue(1, 1, null), "receiveQueue policy", "null");
        refused(() -> b.handlerThreads(0), "handlerThreads", "0");
    }

    @Test
    void aRefusedCall_leavesTheBuilderAsItWas() {
        ClientConfig.Builder b = ClientConfig.builder(TRUST).receiveQueue(10, 20, ReceivePolicy.DROP_NEW);
        assertThatThrownBy(() -> b.receiveQueue(5, 0, ReceivePolicy.BLOCK)).isInstanceOf(IllegalArgumentException.class);
        ClientConfig c = b.build();
        assertThat(List.of(c.receiveQueueEvents, c.receiveQueueBytes)).containsExactly(10, 20L);
    }

    @Test
    void aBuiltConfig_doesNotChangeWithItsBuilder() {
        ClientConfig.Builder b = ClientConfig.builder(TRUST).tenant("a");
        ClientConfig first = b.build();
        b.tenant("b").maxFrameBytes(2048);
        assertThat(first.tenant()).isEqualTo("a");
        assertThat(first.maxFrameBytes).isEqualTo(ClientConfig.DEFAULT_MAX_FRAME_BYTES);
        assertThat(b.build().tenant()).isEqualTo("b");
    }

    private static void refused(Supplier<?> call, String option, String value) {
        assertThatThrownBy(call::get).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(option).hasMessageContaining(value);
    }
}
