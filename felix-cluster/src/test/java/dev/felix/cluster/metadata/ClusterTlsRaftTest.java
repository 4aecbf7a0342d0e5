package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.felix.cluster.tls.ClusterTls;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;
import dev.felix.transport.TlsMaterial;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.security.TlsConf;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.SslProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** Raft RPC is mutual TLS against the cluster CA: a certificate from another CA is refused, and logged. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClusterTlsRaftTest {

    @TempDir
    Path dir;
    TestNodes nodes;
    final ListAppender<ILoggingEvent> serverLog = new ListAppender<>();
    final ListAppender<ILoggingEvent> trustLog = new ListAppender<>();

    @BeforeEach
    void setUp() {
        nodes = new TestNodes(dir);
        serverLog.start();
        trustLog.start();
        ((Logger) LoggerFactory.getLogger(RaftTls.class)).addAppender(serverLog);
        ((Logger) LoggerFactory.getLogger("dev.felix.cluster.tls.CaTrustManager")).addAppender(trustLog);
    }

    @AfterEach
    void tearDown() {
        ((Logger) LoggerFactory.getLogger(RaftTls.class)).detachAppender(serverLog);
        ((Logger) LoggerFactory.getLogger("dev.felix.cluster.tls.CaTrustManager")).detachAppender(trustLog);
        nodes.close();
    }

    @Test
    void nodeOfAnotherCa_cannotJoin_andTheRefusingSideLogsPeerAndSubject() throws Exception {
        RaftMetadata n1 = nodes.bootstrap("n1");
        ClusterTls.CaFiles otherCa = ClusterTls.createCa(dir.resolve("other-ca"));
        ClusterSettings rogue = nodes.settings("rogue")
                .tls(ClusterTls.Settings.selfIssued(otherCa.cert(), otherCa.key()))
                .join(n1.raftAddress())
                .requestTimeout(Duration.ofSeconds(2))
                .startTimeout(Duration.ofSeconds(3))
                .build();

        assertThatThrownBy(() -> nodes.start(rogue))
                .isInstanceOfSatisfying(FelixException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE))
                .hasMessageContaining("TLS refused peer " + n1.raftAddress())
                .hasMessageContaining("'CN=n1'")
                .hasMessageContaining("does not chain to the cluster CA");
        // the rogue node (a client here) refused n1's certificate: logged with n1's address and subject
        assertThat(messages(trustLog)).anySatisfy(m -> assertThat(m)
                .startsWith("refused the TLS peer " + n1.raftAddress() + ": the server certificate 'CN=n1'")
                .contains("does not chain to the cluster CA"));
        // n1 saw the handshake fail, with the rogue's address
        assertThat(messages(serverLog)).anySatisfy(m -> assertThat(m)
                .startsWith("TLS handshake with the Raft peer at /127.0.0.1:"));
        // and the cluster did not change
        assertThat(n1.nodes()).extracting(dev.felix.cluster.NodeInfo::nodeId).containsExactly("n1");
        assertThat(n1.raftStatus().members()).containsExactly("n1");
    }

    @Test
    void clientCertificateOfAnotherCa_isRefusedByTheServer_whichLogsAddressAndSubject() throws Exception {
        RaftMetadata n1 = nodes.bootstrap("n1");
        // A client that trusts the cluster CA (so it accepts n1) but presents a certificate of another CA.
        ClusterTls.CaFiles otherCa = ClusterTls.createCa(dir.resolve("other-ca"));
        ClusterTls.NodeFiles rogueFiles = ClusterTls.issueNode(otherCa.cert().getParent(), "rogue",
                List.of("127.0.0.1"), dir.resolve("rogue"));
        TlsMaterial rogue = TlsMaterial.loadPem(rogueFiles.cert(), rogueFiles.key());
        ClusterTls trusting = ClusterTls.load(ClusterTls.Settings.selfIssued(nodes.ca.cert(), nodes.ca.key()),
                "helper", List.of("127.0.0.1"), dir.resolve("helper"));
        Parameters p = new Parameters();
        GrpcConfigKeys.TLS.setConf(p, GrpcTlsConfig.newBuilder()
                .setPrivateKey(new TlsConf.PrivateKeyConf(rogue.privateKey()))
                .setKeyCertificates(new TlsConf.CertificatesConf(rogue.chain()))
                .setTrustManager(trusting.trustManager())
                .setMutualTls(true)
                .setProtocols("TLSv1.3")
                .setSslProvider(SslProvider.JDK)
                .build());
        RaftGroup group = RaftGroup.valueOf(RaftMetadata.groupId("felix"),
                RaftPeer.newBuilder().setId("n1").setAddress(n1.raftAddress()).build());
        byte[] heartbeat = Json.encode(new Heartbeat("rogue", 1, 1, List.of()));
        try (RaftClient client = RaftClient.newBuilder().setRaftGroup(group).setParameters(p)
                .setProperties(new RaftProperties())
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(2,
                        org.apache.ratis.util.TimeDuration.valueOf(50, TimeUnit.MILLISECONDS)))
                .build()) {
            assertThatThrownBy(() -> client.io().sendReadOnly(Message.valueOf(ByteString.copyFrom(heartbeat))))
                    .isInstanceOf(IOException.class);
        }
        assertThat(messages(serverLog)).anySatisfy(m -> assertThat(m)
                .startsWith("refused a Raft connection from /127.0.0.1:")
                .contains("the client certificate 'CN=rogue' (issued by '"
                        + rogue.chain().get(1).getSubjectX500Principal().getName() + "')")
                .contains("does not chain to the cluster CA '"
                        + n1.tls().caCertificate().getSubjectX500Principal().getName() + "'"));
        assertThat(n1.tls().refusals()).isPositive();
        // the heartbeat never reached the state machine: the rogue is no member and n1 stays alone
        assertThat(n1.nodes()).extracting(dev.felix.cluster.NodeInfo::nodeId).containsExactly("n1");
    }

    private static List<String> messages(ListAppender<ILoggingEvent> log) {
        synchronized (log.list) {
            return log.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        }
    }
}
