package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.cluster.tls.ClusterTls;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code node.json}: written once, checked at every later start. */
class NodeFileTest {

    @TempDir
    Path dir;

    private ClusterSettings.Builder settings() {
        return ClusterSettings.builder().nodeId("n1").raftBind("127.0.0.1:0").bootstrap(true)
                .tls(ClusterTls.Settings.selfIssued(dir.resolve("ca.pem"), dir.resolve("ca.key"))).dataDir(dir);
    }

    @Test
    void portZeroPicksAPortOnce_andARestartKeepsIt() throws Exception {
        NodeFile first = NodeFile.loadOrCreate(dir, settings().build());
        assertThat(first.raftAddress().port()).isPositive();
        assertThat(first.instanceId()).isNotBlank();
        assertThat(Files.readString(dir.resolve("node.json"))).contains("\"node_id\" : \"n1\"")
                .contains("\"raft_address\" : \"127.0.0.1:" + first.raftAddress().port() + "\"");
        NodeFile again = NodeFile.loadOrCreate(dir, settings().build());
        assertThat(again).isEqualTo(first);
        NodeFile explicit = NodeFile.loadOrCreate(dir,
                settings().raftBind("127.0.0.1:" + first.raftAddress().port()).build());
        assertThat(explicit).isEqualTo(first);
    }

    @Test
    void settingsThatDisagreeFailNamingTheSetting() throws Exception {
        NodeFile first = NodeFile.loadOrCreate(dir, settings().build());
        assertThatThrownBy(() -> NodeFile.loadOrCreate(dir, settings().nodeId("n2").build()))
                .isInstanceOfSatisfying(FelixException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST))
                .hasMessageContaining("node_id 'n2' differs from 'n1'");
        assertThatThrownBy(() -> NodeFile.loadOrCreate(dir, settings().clusterName("other").build()))
                .hasMessageContaining("cluster_name 'other' differs from 'felix'");
        int other = first.raftAddress().port() == 65000 ? 65001 : 65000;
        assertThatThrownBy(() -> NodeFile.loadOrCreate(dir, settings().raftBind("127.0.0.1:" + other).build()))
                .hasMessageContaining("raft_bind 127.0.0.1:" + other + " differs from " + first.raftAddress());
        assertThatThrownBy(() -> NodeFile.loadOrCreate(dir, settings().raftBind("localhost:0").build()))
                .hasMessageContaining("raft_bind localhost:0 differs");
    }

    @Test
    void anAdvertisedAddressIsKept_besideTheBoundOne_andALaterStartMustGiveTheSame() throws Exception {
        NodeFile plain = NodeFile.loadOrCreate(dir.resolve("plain"), settings().build());
        assertThat(plain.raftAdvertise()).isNull();
        assertThat(plain.advertised()).isEqualTo(plain.raftAddress());
        assertThat(Files.readString(dir.resolve("plain/node.json"))).doesNotContain("raft_advertise");
        assertThat(NodeFile.loadOrCreate(dir.resolve("plain"),
                settings().raftAdvertise(plain.raftAddress().toString()).build()))
                .as("the address the members know it by, given explicitly").isEqualTo(plain);

        NodeFile first = NodeFile.loadOrCreate(dir, settings().raftAdvertise("10.0.0.7:7100").build());
        assertThat(first.advertised()).isEqualTo(new HostPort("10.0.0.7", 7100));
        assertThat(first.raftAddress().host()).isEqualTo("127.0.0.1");
        assertThat(Files.readString(dir.resolve("node.json"))).contains("\"raft_advertise\" : \"10.0.0.7:7100\"");
        assertThat(NodeFile.loadOrCreate(dir, settings().raftAdvertise("10.0.0.7:7100").build())).isEqualTo(first);

        assertThatThrownBy(() -> NodeFile.loadOrCreate(dir, settings().raftAdvertise("10.0.0.7:7200").build()))
                .isInstanceOfSatisfying(FelixException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST))
                .hasMessageContaining("raft_advertise 10.0.0.7:7200 differs from 10.0.0.7:7100")
                .hasMessageContaining("start it with raft_advertise 10.0.0.7:7100");
        assertThatThrownBy(() -> NodeFile.loadOrCreate(dir, settings().build()))
                .hasMessageContaining("raft_advertise (unset) differs from 10.0.0.7:7100");
        assertThatThrownBy(() -> NodeFile.loadOrCreate(dir.resolve("plain"),
                settings().raftAdvertise("10.0.0.7:7100").build()))
                .hasMessageContaining("raft_advertise 10.0.0.7:7100 differs from (unset)")
                .hasMessageContaining("start it without raft_advertise");
    }

    @Test
    void theNodesOwnClientsDialTheBoundAddress_loopbackForAWildcard_notTheAdvertisedOne() throws Exception {
        NodeFile plain = NodeFile.loadOrCreate(dir.resolve("plain"), settings().build());
        assertThat(plain.dialledBySelf()).as("without raft_advertise: where others dial it").isEqualTo(plain.advertised());

        NodeFile concrete = NodeFile.loadOrCreate(dir.resolve("concrete"),
                settings().raftBind("127.0.0.2:7101").raftAdvertise("10.0.0.7:7100").build());
        assertThat(concrete.dialledBySelf()).isEqualTo(new HostPort("127.0.0.2", 7101));

        NodeFile v4 = NodeFile.loadOrCreate(dir.resolve("v4"),
                settings().raftBind("0.0.0.0:7102").raftAdvertise("10.0.0.7:7100").build());
        assertThat(v4.dialledBySelf()).as("a wildcard bind: loopback").isEqualTo(new HostPort("127.0.0.1", 7102));

        NodeFile v6 = NodeFile.loadOrCreate(dir.resolve("v6"),
                settings().raftBind("[::]:7103").raftAdvertise("10.0.0.7:7100").build());
        assertThat(v6.dialledBySelf()).isEqualTo(new HostPort("::1", 7103));
    }

    @Test
    void aDamagedFileIsReportedWithItsPath() throws Exception {
        Files.writeString(dir.resolve("node.json"), "{\"format\":1,\"node_id\":\"n1\"}");
        assertThatThrownBy(() -> NodeFile.loadOrCreate(dir, settings().build()))
                .hasMessageContaining(dir.resolve("node.json").toString())
                .hasMessageContaining("lacks");
    }

    @Test
    void aFreshDataDirNeedsBootstrapOrJoin() throws Exception {
        ClusterTls.CaFiles ca = ClusterTls.createCa(dir.resolve("ca"));
        ClusterSettings neither = ClusterSettings.builder().nodeId("n1").raftBind("127.0.0.1:0")
                .tls(ClusterTls.Settings.selfIssued(ca.cert(), ca.key())).dataDir(dir.resolve("data")).build();
        assertThatThrownBy(() -> RaftMetadata.start(neither, NodeAddresses.of("127.0.0.1:1", "127.0.0.1:2"),
                dev.felix.cluster.ReplicaReporter.NONE, null))
                .isInstanceOfSatisfying(FelixException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST))
                .hasMessageContaining("start it with cluster_bootstrap")
                .hasMessageContaining("or cluster_join HOST:PORT");
    }
}
