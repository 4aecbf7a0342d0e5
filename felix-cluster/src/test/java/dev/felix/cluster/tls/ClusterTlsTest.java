package dev.felix.cluster.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.transport.TlsException;
import dev.felix.transport.TlsMaterial;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cluster CA helpers, loading a node identity, and the CA-only trust manager. */
class ClusterTlsTest {

    @TempDir
    Path dir;
    ClusterTls.CaFiles ca;

    @BeforeEach
    void setUp() throws Exception {
        ca = ClusterTls.createCa(dir.resolve("ca"));
    }

    @Test
    void createCa_writesACaCertificateAndAnOwnerOnlyKey_andRefusesToOverwrite() throws Exception {
        X509Certificate cert = TlsMaterial.readCertificates(ca.cert()).get(0);
        assertThat(cert.getBasicConstraints()).isGreaterThanOrEqualTo(0);
        assertThat(cert.getSubjectX500Principal().getName()).startsWith("CN=felix cluster CA ");
        assertThat(Files.getPosixFilePermissions(ca.key()))
                .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        assertThatThrownBy(() -> ClusterTls.createCa(dir.resolve("ca"))).hasMessageContaining("refusing to overwrite");
        ClusterTls.CaFiles other = ClusterTls.createCa(dir.resolve("other"));
        assertThat(TlsMaterial.readCertificates(other.cert()).get(0).getSubjectX500Principal())
                .isNotEqualTo(cert.getSubjectX500Principal());
    }

    @Test
    void issueNode_namesTheNodeAndItsHosts_forServerAndClientUse() throws Exception {
        ClusterTls.NodeFiles files = ClusterTls.issueNode(dir.resolve("ca"), "n1", List.of("127.0.0.1", "node1.lan"),
                dir.resolve("n1"));
        TlsMaterial m = TlsMaterial.loadPem(files.cert(), files.key());
        X509Certificate leaf = m.certificate();
        assertThat(leaf.getSubjectX500Principal().getName()).isEqualTo("CN=n1");
        assertThat(ClusterTls.subjectAlternativeNames(leaf)).containsExactlyInAnyOrder("n1", "127.0.0.1", "node1.lan");
        assertThat(leaf.getExtendedKeyUsage()).contains("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
        assertThat(m.chain()).hasSize(2);
        assertThat(ClusterTls.issuedBy(leaf, m.chain().get(1))).isTrue();
    }

    @Test
    void load_withAnIssuedCertificate() throws Exception {
        ClusterTls.NodeFiles files = ClusterTls.issueNode(dir.resolve("ca"), "n1", List.of("127.0.0.1"),
                dir.resolve("n1"));
        ClusterTls tls = ClusterTls.load(ClusterTls.Settings.issued(ca.cert(), files.cert(), files.key()), "n1",
                List.of("127.0.0.1"), dir.resolve("unused"));
        assertThat(tls.subject()).isEqualTo("CN=n1");
        assertThat(tls.certificateChain()).hasSize(2).last().isEqualTo(tls.caCertificate());
        assertThat(tls.keyManager().getPrivateKey(tls.keyManager().chooseClientAlias(new String[] {"EC"}, null, null)))
                .isNotNull();
        assertThat(Files.exists(dir.resolve("unused"))).isFalse();
    }

    @Test
    void load_refusesACertificateOfAnotherCa_namingTheSettings() throws Exception {
        ClusterTls.createCa(dir.resolve("other"));
        ClusterTls.NodeFiles foreign = ClusterTls.issueNode(dir.resolve("other"), "n1", List.of("127.0.0.1"),
                dir.resolve("n1"));
        assertThatThrownBy(() -> ClusterTls.load(ClusterTls.Settings.issued(ca.cert(), foreign.cert(), foreign.key()),
                "n1", List.of("127.0.0.1"), dir.resolve("tls")))
                .isInstanceOf(TlsException.class)
                .hasMessageContaining("cluster_node_cert " + foreign.cert())
                .hasMessageContaining("is not issued by the CA in cluster_ca_cert " + ca.cert());
    }

    @Test
    void load_namesMissingFilesAndWrongKeys() throws Exception {
        assertThatThrownBy(() -> ClusterTls.load(ClusterTls.Settings.selfIssued(dir.resolve("nope.pem"), ca.key()),
                "n1", List.of(), dir.resolve("tls")))
                .hasMessageStartingWith("cluster_ca_cert " + dir.resolve("nope.pem") + " does not exist");
        ClusterTls.CaFiles other = ClusterTls.createCa(dir.resolve("other"));
        assertThatThrownBy(() -> ClusterTls.load(ClusterTls.Settings.selfIssued(ca.cert(), other.key()), "n1",
                List.of(), dir.resolve("tls"))).hasMessageContaining("cluster_ca_key " + other.key()
                + " is not the key of the CA");
        ClusterTls.NodeFiles n1 = ClusterTls.issueNode(dir.resolve("ca"), "n1", List.of(), dir.resolve("a"));
        ClusterTls.NodeFiles n2 = ClusterTls.issueNode(dir.resolve("ca"), "n2", List.of(), dir.resolve("b"));
        assertThatThrownBy(() -> ClusterTls.load(ClusterTls.Settings.issued(ca.cert(), n1.cert(), n2.key()), "n1",
                List.of(), dir.resolve("tls"))).hasMessage("cluster_node_key " + n2.key() + " is not the key of"
                + " cluster_node_cert " + n1.cert());
        assertThatThrownBy(() -> ClusterTls.load(ClusterTls.Settings.issued(ca.cert(), n1.cert(), n1.key()), "n1",
                List.of("10.1.2.3"), dir.resolve("tls")))
                .hasMessageStartingWith("cluster_node_cert " + n1.cert() + " does not name 10.1.2.3");
        ClusterTls.NodeFiles leafOnly = ClusterTls.issueNode(dir.resolve("ca"), "n1", List.of(), dir.resolve("n1"));
        assertThatThrownBy(() -> ClusterTls.load(ClusterTls.Settings.selfIssued(leafOnly.cert(), ca.key()), "n1",
                List.of(), dir.resolve("tls"))).hasMessageContaining("is not a CA certificate");
    }

    @Test
    void selfIssued_isWrittenOnce_reusedAfterwards_reissuedWhenItNoLongerNamesTheNode() throws Exception {
        Path tlsDir = dir.resolve("data/cluster/tls");
        ClusterTls.Settings s = ClusterTls.Settings.selfIssued(ca.cert(), ca.key());
        ClusterTls first = ClusterTls.load(s, "n1", List.of("127.0.0.1"), tlsDir);
        assertThat(Files.exists(tlsDir.resolve(ClusterTls.NODE_CERT_FILE))).isTrue();
        assertThat(Files.getPosixFilePermissions(tlsDir.resolve(ClusterTls.NODE_KEY_FILE)))
                .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        ClusterTls again = ClusterTls.load(s, "n1", List.of("127.0.0.1"), tlsDir);
        assertThat(again.certificate()).isEqualTo(first.certificate());
        ClusterTls moved = ClusterTls.load(s, "n1", List.of("10.1.2.3"), tlsDir);
        assertThat(moved.certificate()).isNotEqualTo(first.certificate());
        assertThat(ClusterTls.subjectAlternativeNames(moved.certificate())).contains("10.1.2.3");
    }

    @Test
    void trustManager_acceptsChainsToTheCa_refusesOthersNamingSubjectAndIssuer() throws Exception {
        ClusterTls tls = ClusterTls.load(ClusterTls.Settings.selfIssued(ca.cert(), ca.key()), "n1",
                List.of("127.0.0.1"), dir.resolve("n1"));
        ClusterTls peer = ClusterTls.load(ClusterTls.Settings.selfIssued(ca.cert(), ca.key()), "n2",
                List.of("127.0.0.1"), dir.resolve("n2"));
        X509Certificate[] good = peer.certificateChain().toArray(X509Certificate[]::new);
        tls.trustManager().checkClientTrusted(good, "ECDHE_ECDSA");
        tls.trustManager().checkServerTrusted(good, "ECDHE_ECDSA");
        assertThat(tls.refusals()).isZero();
        assertThat(tls.trustManager().getAcceptedIssuers()).isEmpty();

        ClusterTls.CaFiles otherCa = ClusterTls.createCa(dir.resolve("other"));
        ClusterTls rogue = ClusterTls.load(ClusterTls.Settings.selfIssued(otherCa.cert(), otherCa.key()), "rogue",
                List.of("127.0.0.1"), dir.resolve("rogue"));
        X509Certificate[] bad = rogue.certificateChain().toArray(X509Certificate[]::new);
        assertThatThrownBy(() -> tls.trustManager().checkClientTrusted(bad, "ECDHE_ECDSA"))
                .isInstanceOf(CertificateRefusedException.class)
                .hasMessage("the client certificate 'CN=rogue' (issued by '"
                        + rogue.caCertificate().getSubjectX500Principal().getName()
                        + "') does not chain to the cluster CA '"
                        + tls.caCertificate().getSubjectX500Principal().getName() + "'");
        // a rogue chain that appends the real CA certificate is refused too
        X509Certificate[] smuggled = {bad[0], tls.caCertificate()};
        assertThatThrownBy(() -> tls.trustManager().checkServerTrusted(smuggled, "ECDHE_ECDSA"))
                .isInstanceOf(CertificateException.class).hasMessageContaining("'CN=rogue'");
        assertThat(tls.refusals()).isEqualTo(2);
        assertThat(tls.lastRefusal()).contains("CN=rogue");
    }
}
