package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.cluster.tls.ClusterTls;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Settings are checked when built; every message names the setting. */
class ClusterSettingsTest {

    private static final ClusterTls.Settings TLS = ClusterTls.Settings.selfIssued(Path.of("ca.pem"), Path.of("ca.key"));

    private static ClusterSettings.Builder valid() {
        return ClusterSettings.builder().nodeId("node-1").raftBind("127.0.0.1:0").bootstrap(true).tls(TLS)
                .dataDir(Path.of("data"));
    }

    @Test
    void defaultsLiveInOnePlace() {
        ClusterSettings s = valid().build();
        assertThat(s.clusterName()).isEqualTo("felix");
        assertThat(s.heartbeatInterval()).isEqualTo(Duration.ofMillis(500));
        assertThat(s.failureTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(s.requestTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(s.startTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(s.join()).isNull();
        assertThat(s.clusterDir()).isEqualTo(Path.of("data", "cluster"));
        assertThat(s.raftBind()).isEqualTo(new HostPort("127.0.0.1", 0));
    }

    @Test
    void bootstrapAndJoinAreExclusive() {
        assertThatThrownBy(() -> valid().join("10.0.0.1:7000").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("cluster_bootstrap and cluster_join are exclusive");
    }

    @Test
    void nodeIdIsRequiredAndShaped() {
        assertThatThrownBy(() -> valid().nodeId(null).build()).hasMessageStartingWith("node_id is required");
        assertThatThrownBy(() -> valid().nodeId("Node_1").build()).hasMessageStartingWith("node_id 'Node_1' must be");
        assertThatThrownBy(() -> valid().nodeId("-a").build()).hasMessageContaining("node_id '-a'");
        assertThatThrownBy(() -> valid().nodeId("a".repeat(64)).build()).hasMessageContaining("node_id");
        assertThat(valid().nodeId("a".repeat(63)).build().nodeId()).hasSize(63);
    }

    @Test
    void addressesAreCheckedAtTheCall() {
        assertThatThrownBy(() -> ClusterSettings.builder().raftBind("no-port"))
                .hasMessageStartingWith("raft_bind must be HOST:PORT");
        assertThatThrownBy(() -> ClusterSettings.builder().raftBind("h:99999"))
                .hasMessageContaining("raft_bind: port must be within");
        assertThatThrownBy(() -> ClusterSettings.builder().join("h:x")).hasMessageContaining("cluster_join: port 'x'");
        assertThatThrownBy(() -> valid().raftBind("0.0.0.0:7000").build())
                .hasMessageContaining("raft_bind 0.0.0.0:7000 must name an address other nodes can dial");
        assertThatThrownBy(() -> valid().raftBind((HostPort) null).build())
                .hasMessageStartingWith("raft_bind is required");
        assertThatThrownBy(() -> valid().bootstrap(false).join("h:0").build())
                .hasMessageContaining("cluster_join h:0 must name a member's Raft port");
        assertThatThrownBy(() -> valid().raftAdvertise("0.0.0.0:7100").build())
                .hasMessageContaining("raft_advertise 0.0.0.0:7100 must be an address other nodes can dial");
        assertThatThrownBy(() -> valid().raftAdvertise("10.0.0.1:0").build())
                .hasMessageContaining("raft_advertise 10.0.0.1:0 must be an address other nodes can dial");
        assertThatThrownBy(() -> ClusterSettings.builder().raftAdvertise("h:x"))
                .hasMessageContaining("raft_advertise: port 'x'");
        assertThat(valid().build().raftAdvertise()).isNull();
        assertThat(valid().raftBind("0.0.0.0:7000").raftAdvertise("10.0.0.1:7100").build().raftBind())
                .as("a wildcard bind, with the address other nodes dial given").isEqualTo(new HostPort("0.0.0.0", 7000));
        assertThat(valid().raftAdvertise("10.0.0.1:7100").build().raftAdvertise())
                .isEqualTo(new HostPort("10.0.0.1", 7100));
        assertThat(HostPort.parse("x", "[::1]:7000")).isEqualTo(new HostPort("::1", 7000));
        assertThat(new HostPort("::1", 7000)).hasToString("[::1]:7000");
    }

    @Test
    void timingsAreChecked() {
        assertThatThrownBy(() -> valid().heartbeatInterval(Duration.ofMillis(1)).build())
                .hasMessageStartingWith("cluster_heartbeat_ms must be at least 20ms");
        assertThatThrownBy(() -> valid().heartbeatInterval(Duration.ofSeconds(1)).failureTimeout(Duration.ofSeconds(1))
                .build()).hasMessageStartingWith("cluster_failure_timeout_ms (1000ms) must be at least twice"
                        + " cluster_heartbeat_ms (1000ms)");
        assertThatThrownBy(() -> valid().requestTimeout(Duration.ZERO)).hasMessageStartingWith(
                "cluster_request_timeout_ms must be positive");
        assertThatThrownBy(() -> valid().requestTimeout(Duration.ofSeconds(9)).startTimeout(Duration.ofSeconds(8))
                .build())
                .hasMessageContaining("cluster_start_timeout_ms (8000ms) must be at least cluster_request_timeout_ms");
    }

    @Test
    void clusterNameTlsAndDataDir() {
        assertThatThrownBy(() -> valid().clusterName("Prod!").build()).hasMessageStartingWith("cluster_name 'Prod!'");
        assertThatThrownBy(() -> valid().tls(null).build()).hasMessageStartingWith("cluster_ca_cert is required");
        assertThatThrownBy(() -> valid().dataDir(null).build()).hasMessageStartingWith("data_dir is required");
    }

    @Test
    void tlsSettingsNameTheMissingPiece() {
        assertThatThrownBy(() -> new ClusterTls.Settings(null, null, null, Path.of("k")))
                .hasMessageStartingWith("cluster_ca_cert is required");
        assertThatThrownBy(() -> new ClusterTls.Settings(Path.of("ca"), Path.of("c"), null, null))
                .hasMessageContaining("cluster_node_key is missing");
        assertThatThrownBy(() -> new ClusterTls.Settings(Path.of("ca"), Path.of("c"), Path.of("k"), Path.of("cak")))
                .hasMessageContaining("are exclusive");
        assertThatThrownBy(() -> new ClusterTls.Settings(Path.of("ca"), null, null, null))
                .hasMessageContaining("set cluster_node_cert and cluster_node_key");
    }
}
