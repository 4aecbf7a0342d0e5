package dev.felix.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.core.CoreConfig;
import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.transport.TransportConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The broker's config builders ({@link BrokerConfig}, {@link ClusterConfig}): a built configuration starts from the
 * same defaults as a loaded one (the documented constants, via {@link Settings}), every bad value is refused at the
 * call with the setting's name, rules between settings fail in {@code build()}, and a built value is immutable.
 */
class ConfigBuildersTest {

    private static final HostPort LOOPBACK = new HostPort("127.0.0.1", 0);

    @Test
    void brokerBuilder_defaults_equalTheLoadedDefaultsAndTheDocumentedConstants() throws Exception {
        BrokerConfig c = BrokerConfig.builder().build();
        assertThat(c).isEqualTo(ConfigLoader.load(null, Map.of(), Map.of()));
        assertThat(c.dataDir()).isEqualTo(BrokerConfig.DEFAULT_DATA_DIR);
        assertThat(c.quicBind()).isEqualTo(BrokerConfig.DEFAULT_QUIC_BIND);
        assertThat(c.httpBind()).isEqualTo(BrokerConfig.DEFAULT_HTTP_BIND);
        assertThat(c.maxFrameBytes()).isEqualTo(BrokerConfig.DEFAULT_MAX_FRAME_BYTES);
        assertThat(c.ingressPolicy()).isEqualTo(BrokerConfig.DEFAULT_INGRESS_POLICY);
        assertThat(c.shutdownTimeout()).isEqualTo(BrokerConfig.DEFAULT_SHUTDOWN_TIMEOUT);
        assertThat(c.ringEvents()).isEqualTo(CoreConfig.DEFAULT_RING_EVENTS);
        assertThat(c.writerQueue()).isEqualTo(CoreConfig.DEFAULT_WRITER_QUEUE);
        assertThat(c.subscriberQueue()).isEqualTo(CoreConfig.DEFAULT_SUBSCRIBER_QUEUE);
        assertThat(c.subscriberQueuePolicy()).isEqualTo(CoreConfig.DEFAULT_EPHEMERAL_POLICY);
        assertThat(c.segmentBytes()).isEqualTo(CoreConfig.Storage.DEFAULT_SEGMENT_BYTES);
        assertThat(c.storageFlushThreads()).isEqualTo(CoreConfig.Storage.DEFAULT_FLUSH_THREADS);
        assertThat(c.retentionCheck()).isEqualTo(CoreConfig.Storage.DEFAULT_RETENTION_CHECK);
        assertThat(c.connWindowBytes()).isEqualTo(TransportConfig.DEFAULT_CONNECTION_WINDOW);
        assertThat(c.idleTimeout()).isEqualTo(TransportConfig.DEFAULT_IDLE_TIMEOUT);
        assertThat(c.maxUdpPayloadBytes()).isEqualTo(TransportConfig.AUTOMATIC_UDP_PAYLOAD);
        assertThat(c.cluster()).isNull();
    }

    @Test
    void brokerDefaults_implyTheCoreAndTransportDefaults() {
        BrokerConfig c = BrokerConfig.builder().build();
        CoreConfig core = c.coreConfig();
        assertThat(core.toBuilder().storage(null).build()).isEqualTo(CoreConfig.defaults());
        assertThat(core.storage()).isEqualTo(CoreConfig.Storage.at(BrokerConfig.DEFAULT_DATA_DIR));
        assertThat(c.transportConfig()).isEqualTo(TransportConfig.builder().ioThreads(1).build());
    }

    @Test
    void brokerBuilder_badValues_areRefusedAtTheCall_namingTheSetting() {
        refused(() -> BrokerConfig.builder().maxFrameBytes(100), "max_frame_bytes", "100");
        refused(() -> BrokerConfig.builder().shardThreads(-1), "shard_threads", "-1");
        refused(() -> BrokerConfig.builder().segmentBytes(10), "segment_bytes", "10");
        refused(() -> BrokerConfig.builder().retentionCheck(Duration.ofMillis(1)), "retention_check_ms", "1");
        refused(() -> BrokerConfig.builder().storageFlushThreads(0), "storage_flush_threads", "0");
        refused(() -> BrokerConfig.builder().ringEvents(0), "ring_events", "0");
        refused(() -> BrokerConfig.builder().ringBytes(0), "ring_bytes", "0");
        refused(() -> BrokerConfig.builder().writerQueue(new QueueLimits(1 << 30 | 1, 1)), "writer_queue_events",
                String.valueOf(1 << 30 | 1));
        refused(() -> BrokerConfig.builder().subscriberQueue(null), "subscriber_queue_events", "null");
        refused(() -> BrokerConfig.builder().subscriberQueuePolicy(QueuePolicy.CATCH_UP), "subscriber_queue_policy",
                "durable");
        refused(() -> BrokerConfig.builder().ingressPolicy(null), "ingress_policy", "null");
        refused(() -> BrokerConfig.builder().connWindowBytes(10), "conn_window_bytes", "10");
        refused(() -> BrokerConfig.builder().streamWindowBytes(10), "stream_window_bytes", "10");
        refused(() -> BrokerConfig.builder().maxStreams(0), "max_streams", "0");
        refused(() -> BrokerConfig.builder().idleTimeout(Duration.ofMillis(999)), "idle_timeout_ms", "999");
        refused(() -> BrokerConfig.builder().maxUdpPayloadBytes(1000), "max_udp_payload_bytes", "1000");
        refused(() -> BrokerConfig.builder().shutdownTimeout(Duration.ofHours(2)), "shutdown_timeout_ms", "7200000");
        refused(() -> BrokerConfig.builder().dataDir(null), "data_dir", "null");
        refused(() -> BrokerConfig.builder().quicBind(null), "quic_bind", "null");
        refused(() -> BrokerConfig.builder().authTokens(Map.of("Bad Tenant!", List.of("x"))), "auth_tokens",
                "Bad Tenant!");
        refused(() -> BrokerConfig.builder().authTokens(Map.of("t1", List.of())), "auth_tokens", "t1");
    }

    @Test
    void brokerBuilder_crossRules_failInBuild() {
        BrokerConfig.Builder certOnly = BrokerConfig.builder().tls(Path.of("c.pem"), null);
        assertThatThrownBy(certOnly::build).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tls_cert and tls_key must be set together");
        BrokerConfig.Builder openWithoutAuth = BrokerConfig.builder().quicBind(new HostPort("0.0.0.0", 5000));
        assertThatThrownBy(openWithoutAuth::build).hasMessageContaining("quic_bind")
                .hasMessageContaining("not a loopback address").hasMessageContaining("auth_tokens");
        assertThat(openWithoutAuth.insecure(true).build().quicBind().host()).isEqualTo("0.0.0.0");
        BrokerConfig.Builder openAdmin = BrokerConfig.builder().httpBind(new HostPort("0.0.0.0", 8080))
                .authTokens(Map.of("t1", List.of("s")));
        assertThatThrownBy(openAdmin::build).hasMessageContaining("http_bind").hasMessageContaining("insecure");
        BrokerConfig.Builder clusterAutoCreate = BrokerConfig.builder().autoCreate(true).cluster(validCluster().build());
        assertThatThrownBy(clusterAutoCreate::build).hasMessageContaining("auto_create is not supported in a cluster");
        assertThat(clusterAutoCreate.autoCreate(false).build().clustered()).isTrue();
    }

    @Test
    void brokerConfig_isImmutable_andToBuilderRoundTrips() {
        Map<String, List<String>> tokens = new HashMap<>();
        List<String> acme = new ArrayList<>(List.of("a1"));
        tokens.put("acme", acme);
        BrokerConfig c = BrokerConfig.builder().authTokens(tokens).ringEvents(100).build();
        tokens.put("other", List.of("o"));
        acme.add("a2");
        assertThat(c.authTokens()).isEqualTo(Map.of("acme", List.of("a1")));
        assertThatThrownBy(() -> c.authTokens().get("acme").add("x")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(c.toBuilder().build()).isEqualTo(c).hasSameHashCodeAs(c);
        assertThat(c.withBinds(LOOPBACK, LOOPBACK)).isEqualTo(c.toBuilder().quicBind(LOOPBACK).httpBind(LOOPBACK).build());
        assertThat(c.withDataDir(Path.of("elsewhere")).dataDir()).isEqualTo(Path.of("elsewhere"));
    }

    @Test
    void clusterBuilder_defaults_equalTheDocumentedConstants() {
        ClusterConfig c = validCluster().build();
        assertThat(c.name()).isEqualTo(ClusterConfig.DEFAULT_NAME).isEqualTo(Settings.CLUSTER_NAME.defaultText());
        assertThat(c.heartbeat()).isEqualTo(ClusterConfig.DEFAULT_HEARTBEAT);
        assertThat(c.failureTimeout()).isEqualTo(ClusterConfig.DEFAULT_FAILURE_TIMEOUT);
        assertThat(c.requestTimeout()).isEqualTo(ClusterConfig.DEFAULT_REQUEST_TIMEOUT)
                .isEqualTo(Duration.ofMillis(Long.parseLong(Settings.CLUSTER_REQUEST_TIMEOUT_MS.defaultText())));
        assertThat(c.startTimeout()).isEqualTo(ClusterConfig.DEFAULT_START_TIMEOUT)
                .isEqualTo(Duration.ofMillis(Long.parseLong(Settings.CLUSTER_START_TIMEOUT_MS.defaultText())));
        assertThat(c.peerBind()).isEqualTo(new HostPort("127.0.0.1", 0));
        assertThat(c.toBuilder().build()).isEqualTo(c);
    }

    @Test
    void clusterBuilder_badValues_areRefusedAtTheCall_namingTheSetting() {
        refused(() -> ClusterConfig.builder().nodeId("Node 1"), "node_id", "Node 1");
        refused(() -> ClusterConfig.builder().name("bad name"), "cluster_name", "bad name");
        refused(() -> ClusterConfig.builder().heartbeat(Duration.ofMillis(10)), "cluster_heartbeat_ms", "10");
        refused(() -> ClusterConfig.builder().failureTimeout(Duration.ofMillis(100)), "cluster_failure_timeout_ms",
                "100");
        refused(() -> ClusterConfig.builder().requestTimeout(Duration.ofMillis(50)), "cluster_request_timeout_ms",
                "50");
        refused(() -> ClusterConfig.builder().startTimeout(Duration.ofMillis(50)), "cluster_start_timeout_ms", "50");
        refused(() -> ClusterConfig.builder().advertiseHost(" "), "advertise_host", " ");
        refused(() -> ClusterConfig.builder().ca(null), "cluster_ca_cert", "null");
    }

    @Test
    void clusterBuilder_crossRules_failInBuild() {
        assertThatThrownBy(validCluster().requestTimeout(Duration.ofSeconds(90))::build).hasMessageContaining(
                "cluster_start_timeout_ms (60000) must be at least cluster_request_timeout_ms (90000)");
        assertThat(validCluster().requestTimeout(Duration.ofSeconds(90)).startTimeout(Duration.ofSeconds(90)).build()
                .requestTimeout()).isEqualTo(Duration.ofSeconds(90));
        ClusterConfig.Builder both = validCluster().join(new HostPort("127.0.0.1", 7000));
        assertThatThrownBy(both::build).hasMessageContaining("cluster_bootstrap and cluster_join are exclusive");
        ClusterConfig.Builder certAndCaKey = validCluster().cert(Path.of("n.pem"), Path.of("n.key"));
        assertThatThrownBy(certAndCaKey::build).hasMessageContaining("not both");
        ClusterConfig.Builder certWithoutKey = validCluster().caKey(null).cert(Path.of("n.pem"), null);
        assertThatThrownBy(certWithoutKey::build).hasMessageContaining("cluster_node_cert and cluster_node_key");
        ClusterConfig.Builder fastFailure = validCluster().heartbeat(Duration.ofMillis(400))
                .failureTimeout(Duration.ofMillis(700));
        assertThatThrownBy(fastFailure::build).hasMessageContaining("at least twice cluster_heartbeat_ms");
        ClusterConfig.Builder noNode = ClusterConfig.builder().raftBind(LOOPBACK).advertiseHost("127.0.0.1")
                .ca(Path.of("ca.pem")).caKey(Path.of("ca.key"));
        assertThatThrownBy(noNode::build).hasMessageContaining("node_id is required");
    }

    private static ClusterConfig.Builder validCluster() {
        return ClusterConfig.builder().nodeId("n1").raftBind(new HostPort("127.0.0.1", 0)).advertiseHost("127.0.0.1")
                .bootstrap(true).ca(Path.of("ca.pem")).caKey(Path.of("ca.key"));
    }

    private static void refused(Supplier<?> call, String setting, String value) {
        assertThatThrownBy(call::get).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(setting).hasMessageContaining(value);
    }
}
