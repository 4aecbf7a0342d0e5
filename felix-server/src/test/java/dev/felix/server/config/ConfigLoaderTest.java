package dev.felix.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.core.QueuePolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

    @TempDir
    Path dir;

    @Test
    void defaults_areLoopbackDevModeWithAutoCreate() throws Exception {
        BrokerConfig c = ConfigLoader.load(null, Map.of(), Map.of());
        assertThat(c.quicBind()).isEqualTo(new HostPort("127.0.0.1", 5000));
        assertThat(c.httpBind()).isEqualTo(new HostPort("127.0.0.1", 8080));
        assertThat(c.dataDir()).isEqualTo(Path.of("./data"));
        assertThat(c.devMode()).isTrue();
        assertThat(c.autoCreate()).isTrue();
        assertThat(c.maxFrameBytes()).isEqualTo(16 << 20);
        assertThat(c.subscriberQueuePolicy()).isEqualTo(QueuePolicy.DROP_NEW);
    }

    @Test
    void precedence_flagOverEnvironmentOverFileOverDefault() throws Exception {
        Path yaml = dir.resolve("felix.yaml");
        Files.writeString(yaml, "ring_events: 100\nsubscriber_queue_events: 200\nshard_threads: 3\n");
        BrokerConfig c = ConfigLoader.load(yaml,
                Map.of("FELIX_SUBSCRIBER_QUEUE_EVENTS", "300", "FELIX_SHARD_THREADS", "4"),
                Map.of("shard_threads", "5"));
        assertThat(c.ringEvents()).isEqualTo(100);            // file over default
        assertThat(c.subscriberQueue().events()).isEqualTo(300); // environment over file
        assertThat(c.shardThreads()).isEqualTo(5);           // flag over environment
    }

    @Test
    void invalidValue_namesTheSettingAndWhereItCameFrom() {
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("FELIX_RING_EVENTS", "zero"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ring_events")
                .hasMessageContaining("FELIX_RING_EVENTS")
                .hasMessageContaining("zero");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("quic_bind", "nohostport")))
                .hasMessageContaining("quic_bind").hasMessageContaining("flag --quic-bind");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("subscriber_queue_policy", "catch_up")))
                .hasMessageContaining("subscriber_queue_policy").hasMessageContaining("durable");
    }

    @Test
    void unknownYamlKey_isAnErrorListingTheKnownOnes() throws Exception {
        Path yaml = dir.resolve("felix.yaml");
        Files.writeString(yaml, "ring_event: 100\n");
        assertThatThrownBy(() -> ConfigLoader.load(yaml, Map.of(), Map.of()))
                .hasMessageContaining("unknown setting 'ring_event'").hasMessageContaining("ring_events");
    }

    @Test
    void badYaml_isAClearError() throws Exception {
        Path yaml = dir.resolve("felix.yaml");
        Files.writeString(yaml, "ring_events: [1, 2\n");
        assertThatThrownBy(() -> ConfigLoader.load(yaml, Map.of(), Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining(yaml.toString());
    }

    @Test
    void nonLoopbackBindWithoutAuth_needsInsecure() throws Exception {
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("quic_bind", "0.0.0.0:5000")))
                .hasMessageContaining("not a loopback address").hasMessageContaining("--insecure");
        assertThat(ConfigLoader.load(null, Map.of(), Map.of("quic_bind", "0.0.0.0:5000", "insecure", "true"))
                .quicBind().host()).isEqualTo("0.0.0.0");
        assertThat(ConfigLoader.load(null, Map.of(), Map.of("quic_bind", "0.0.0.0:5000", "auth_tokens", "t1=secret"))
                .devMode()).isFalse();
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("http_bind", "0.0.0.0:8080",
                "auth_tokens", "t1=secret"))).hasMessageContaining("http_bind");
    }

    @Test
    void authTokens_fromYamlMappingAndEnvironment_turnOffDevModeAndAutoCreate() throws Exception {
        Path yaml = dir.resolve("felix.yaml");
        Files.writeString(yaml, "auth_tokens:\n  acme: [a1, a2]\n  beta: b1\n");
        BrokerConfig c = ConfigLoader.load(yaml, Map.of(), Map.of());
        assertThat(c.authTokens()).containsEntry("acme", java.util.List.of("a1", "a2"))
                .containsEntry("beta", java.util.List.of("b1"));
        assertThat(c.devMode()).isFalse();
        assertThat(c.autoCreate()).isFalse();
        assertThat(ConfigLoader.load(null, Map.of("FELIX_AUTH_TOKENS", "t1=x", "FELIX_AUTO_CREATE", "true"), Map.of())
                .autoCreate()).isTrue();
    }

    @Test
    void tlsCertAndKey_mustComeTogether() {
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("tls_cert", "/x/cert.pem")))
                .hasMessageContaining("tls_cert and tls_key");
    }

    @Test
    void documentation_listsEverySettingWithItsEnvironmentVariableAndDefault() throws Exception {
        Path doc = Path.of(System.getProperty("felix.repo.root", "..")).resolve("docs/configuration.md");
        String text = Files.readString(doc);
        for (Setting<?> s : Settings.ALL) {
            String expectedDefault = s.defaultText() == null ? "(none)" : s.defaultText().isEmpty() ? "(empty)"
                    : s.defaultText();
            assertThat(text).as("docs/configuration.md row for " + s.key())
                    .contains("| `" + s.key() + "` | `" + s.env() + "` |")
                    .contains("| `" + expectedDefault + "` |");
        }
    }
    @Test
    void relaySettings_areLoaded_withTheirDefaults_andABadOneNamesItself() throws Exception {
        Map<String, String> cluster = new java.util.HashMap<>(Map.of("node_id", "n1", "raft_bind", "127.0.0.1:7000",
                "cluster_bootstrap", "true", "cluster_ca_cert", "ca.pem", "cluster_ca_key", "ca.key",
                "quic_bind", "127.0.0.1:0", "http_bind", "127.0.0.1:0"));
        ClusterConfig defaults = ConfigLoader.load(null, Map.of(), cluster).cluster();
        assertThat(defaults.relaySubscribe()).isFalse();
        assertThat(defaults.relay()).isEqualTo(dev.felix.cluster.relay.RelaySettings.defaults());

        cluster.put("cluster_relay_subscribe", "true");
        cluster.put("cluster_relay_workers", "4");
        cluster.put("cluster_relay_deadline_ms", "500");
        ClusterConfig tuned = ConfigLoader.load(null, Map.of(), cluster).cluster();
        assertThat(tuned.relaySubscribe()).isTrue();
        assertThat(tuned.relay().workers()).isEqualTo(4);
        assertThat(tuned.relay().deadline()).isEqualTo(java.time.Duration.ofMillis(500));

        cluster.put("cluster_relay_workers", "0");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), cluster)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("cluster_relay_workers");
    }

    @Test
    void clusterTimeouts_areLoaded_fromFlagsAndEnvironment_andTheStartTimeoutMustCoverTheRequestTimeout()
            throws Exception {
        Map<String, String> cluster = new java.util.HashMap<>(Map.of("node_id", "n1", "raft_bind", "127.0.0.1:7000",
                "cluster_bootstrap", "true", "cluster_ca_cert", "ca.pem", "cluster_ca_key", "ca.key",
                "quic_bind", "127.0.0.1:0", "http_bind", "127.0.0.1:0"));
        ClusterConfig defaults = ConfigLoader.load(null, Map.of(), cluster).cluster();
        assertThat(defaults.requestTimeout()).isEqualTo(java.time.Duration.ofSeconds(5));
        assertThat(defaults.startTimeout()).isEqualTo(java.time.Duration.ofSeconds(60));

        ClusterConfig fromEnv = ConfigLoader.load(null, Map.of("FELIX_CLUSTER_REQUEST_TIMEOUT_MS", "1500",
                "FELIX_CLUSTER_START_TIMEOUT_MS", "20000"), cluster).cluster();
        assertThat(fromEnv.requestTimeout()).isEqualTo(java.time.Duration.ofMillis(1500));
        assertThat(fromEnv.startTimeout()).isEqualTo(java.time.Duration.ofSeconds(20));

        cluster.put("cluster_request_timeout_ms", "30000");
        cluster.put("cluster_start_timeout_ms", "10000");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), cluster)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("cluster_start_timeout_ms (10000) must be at least cluster_request_timeout_ms"
                        + " (30000)");
        cluster.put("cluster_request_timeout_ms", "99");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), cluster)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("cluster_request_timeout_ms");
    }

    @Test
    void raftAdvertise_isLoaded_andNeedsRaftBind() throws Exception {
        Map<String, String> cluster = new java.util.HashMap<>(Map.of("node_id", "n1", "raft_bind", "127.0.0.1:7000",
                "cluster_bootstrap", "true", "cluster_ca_cert", "ca.pem", "cluster_ca_key", "ca.key",
                "quic_bind", "127.0.0.1:0", "http_bind", "127.0.0.1:0"));
        assertThat(ConfigLoader.load(null, Map.of(), cluster).cluster().raftAdvertise()).isNull();
        ClusterConfig forwarded = ConfigLoader.load(null, Map.of("FELIX_RAFT_ADVERTISE", "203.0.113.5:17000"),
                cluster).cluster();
        assertThat(forwarded.raftAdvertise()).isEqualTo(new HostPort("203.0.113.5", 17000));
        assertThat(forwarded.toBuilder().build()).isEqualTo(forwarded);

        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("raft_advertise", "127.0.0.1:17000",
                "quic_bind", "127.0.0.1:0", "http_bind", "127.0.0.1:0")))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("raft_advertise needs raft_bind");
    }
}
