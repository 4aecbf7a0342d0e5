package dev.felix.cluster.tls;

import dev.felix.transport.TlsException;
import dev.felix.transport.TlsMaterial;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;
import org.bouncycastle.asn1.DERSequence;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's identity in the cluster's private PKI: its certificate chain and key, issued by the cluster CA, and
 * a trust manager that accepts only certificates chained to that CA. Raft RPC between nodes runs mutual TLS 1.3
 * with these; the peer replication endpoint uses the same ({@link #certificateChain()}, {@link #privateKey()},
 * {@link #trustManager()}).
 *
 * <p><b>Threads.</b> Immutable after {@link #load}; every accessor is thread-safe. The static helpers write
 * files and are meant for set-up (tests, demo harnesses, an operator's first start).
 *
 * <p><b>Where the node's certificate comes from</b> ({@link Settings}): either an operator issued it
 * ({@code cluster_node_cert} + {@code cluster_node_key}), or the node holds the CA key ({@code cluster_ca_key})
 * and issues its own on first start into {@code <data>/cluster/tls/node.pem} and {@code node.key} (subject
 * {@code CN=<node id>}, subject alternative names: the node id and every Raft host), reissued at a later start
 * when it expires within 30 days or no longer names the node's id and hosts.
 *
 * <p><b>Files.</b> {@link #createCa} writes {@value #CA_CERT_FILE} and an owner-only {@value #CA_KEY_FILE};
 * {@link #issueNode} writes {@value #NODE_CERT_FILE} (the node certificate followed by the CA's) and an
 * owner-only {@value #NODE_KEY_FILE}. Keys are EC P-256, PKCS#8 PEM. A private key is never logged.
 */
public final class ClusterTls {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterTls.class);

    /** The CA certificate {@link #createCa} writes. */
    public static final String CA_CERT_FILE = "ca.pem";
    /** The CA private key {@link #createCa} writes (owner-only). */
    public static final String CA_KEY_FILE = "ca.key";
    /** A node certificate chain {@link #issueNode} writes. */
    public static final String NODE_CERT_FILE = "node.pem";
    /** A node private key {@link #issueNode} writes (owner-only). */
    public static final String NODE_KEY_FILE = "node.key";

    /** Validity of a CA made by {@link #createCa}. */
    static final Duration CA_VALIDITY = Duration.ofDays(3650);
    /** Validity of a node certificate made by {@link #issueNode}. */
    static final Duration NODE_VALIDITY = Duration.ofDays(397);
    /** A self-issued node certificate closer than this to its expiry is reissued at start. */
    static final Duration RENEW_BEFORE = Duration.ofDays(30);

    private static final Pattern IPV4 = Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * Where the node's TLS material comes from. {@code caCert} is required; then either {@code nodeCert} and
     * {@code nodeKey} (issued by that CA), or {@code caKey} (the node issues its own). Invalid combinations throw
     * {@link IllegalArgumentException} naming the setting.
     *
     * @param caCert   {@code cluster_ca_cert}: PEM certificate of the cluster CA
     * @param nodeCert {@code cluster_node_cert}: PEM certificate (chain) of this node, issued by the CA
     * @param nodeKey  {@code cluster_node_key}: PEM private key of {@code nodeCert}
     * @param caKey    {@code cluster_ca_key}: PEM private key of the CA, to issue this node's certificate
     */
    public record Settings(Path caCert, Path nodeCert, Path nodeKey, Path caKey) {

        public static final String CA_CERT = "cluster_ca_cert";
        public static final String NODE_CERT = "cluster_node_cert";
        public static final String NODE_KEY = "cluster_node_key";
        public static final String CA_KEY = "cluster_ca_key";

        public Settings {
            if (caCert == null) {
                throw new IllegalArgumentException(CA_CERT + " is required in cluster mode: the PEM certificate of"
                        + " the cluster CA every node's certificate is issued by (create one with"
                        + " ClusterTls.createCa or your own PKI)");
            }
            if ((nodeCert == null) != (nodeKey == null)) {
                throw new IllegalArgumentException(NODE_CERT + " and " + NODE_KEY + " go together: set both ("
                        + (nodeCert == null ? NODE_CERT : NODE_KEY) + " is missing)");
            }
            if (nodeCert != null && caKey != null) {
                throw new IllegalArgumentException(NODE_CERT + "/" + NODE_KEY + " and " + CA_KEY + " are exclusive:"
                        + " either give the node its certificate, or the CA key to issue one");
            }
            if (nodeCert == null && caKey == null) {
                throw new IllegalArgumentException("set " + NODE_CERT + " and " + NODE_KEY + " (a certificate issued"
                        + " by " + CA_CERT + "), or " + CA_KEY + " (the node issues its own on first start)");
            }
        }

        /** A node that issues its own certificate with the CA key. */
        public static Settings selfIssued(Path caCert, Path caKey) {
            return new Settings(caCert, null, null, caKey);
        }

        /** A node with a certificate issued for it. */
        public static Settings issued(Path caCert, Path nodeCert, Path nodeKey) {
            return new Settings(caCert, nodeCert, nodeKey, null);
        }
    }

    /** Files of a CA made by {@link #createCa}. */
    public record CaFiles(Path cert, Path key) {
    }

    /** Files of a node identity made by {@link #issueNode}. */
    public record NodeFiles(Path cert, Path key) {
    }

    private final X509Certificate ca;
    private final List<X509Certificate> chain;
    private final PrivateKey privateKey;
    private final CaTrustManager trustManager;

    private ClusterTls(X509Certificate ca, List<X509Certificate> chain, PrivateKey privateKey) throws TlsException {
        this.ca = ca;
        this.chain = List.copyOf(chain);
        this.privateKey = privateKey;
        this.trustManager = new CaTrustManager(ca);
    }

    /** The cluster CA certificate. */
    public X509Certificate caCertificate() {
        return ca;
    }

    /** This node's certificate followed by its issuers up to (and including) the CA. */
    public List<X509Certificate> certificateChain() {
        return chain;
    }

    /** This node's certificate. */
    public X509Certificate certificate() {
        return chain.get(0);
    }

    /** The private key of {@link #certificate()}; never log it. */
    public PrivateKey privateKey() {
        return privateKey;
    }

    /**
     * Accepts only certificate chains that lead to the cluster CA (and, where the TLS stack asks for it, whose
     * names match the peer's host). A refusal throws a {@link java.security.cert.CertificateException} whose
     * message names the certificate's subject and issuer; on the side that knows the peer's address (the one
     * that connected) it is also logged with that address. The same instance for every call.
     */
    public X509TrustManager trustManager() {
        return trustManager;
    }

    /** How many peer certificates {@link #trustManager()} refused since this node started. */
    public long refusals() {
        return trustManager.refusals();
    }

    /** The last refusal of {@link #trustManager()} in words (peer, subject, issuer), or null. */
    public String lastRefusal() {
        return trustManager.lastRefusal();
    }

    /** A key manager presenting {@link #certificateChain()} with {@link #privateKey()}. */
    public X509KeyManager keyManager() throws TlsException {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            char[] password = new char[0];
            store.setKeyEntry("node", privateKey, password, chain.toArray(X509Certificate[]::new));
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(store, password);
            return (X509KeyManager) factory.getKeyManagers()[0];
        } catch (GeneralSecurityException | IOException e) {
            throw new TlsException("could not build a key manager for the node certificate: " + e.getMessage(), e);
        }
    }

    /** The subject of this node's certificate, for messages. */
    public String subject() {
        return certificate().getSubjectX500Principal().getName();
    }

    // ------------------------------------------------------------------ loading

    /**
     * Loads this node's identity as {@code settings} say. A given certificate must be issued by the CA, match its
     * key and name every one of {@code hosts} (peers check the name of the host they dial). With {@code caKey},
     * a certificate for {@code nodeId}
     * and {@code hosts} is issued into {@code tlsDir} on first use and reused afterwards (reissued when it
     * expires within 30 days or no longer names {@code nodeId} and every host). Every failure names the setting
     * and the file.
     */
    public static ClusterTls load(Settings settings, String nodeId, List<String> hosts, Path tlsDir)
            throws TlsException {
        return load(settings, nodeId, hosts, List.of(), tlsDir);
    }

    /**
     * As {@link #load(Settings, String, List, Path)}; a certificate this node issues itself also names
     * {@code extraHosts} (where clients reach it: the node presents the same identity to clients), which an
     * operator-issued certificate is not required to name.
     */
    public static ClusterTls load(Settings settings, String nodeId, List<String> hosts, List<String> extraHosts,
            Path tlsDir) throws TlsException {
        Objects.requireNonNull(settings, "settings");
        X509Certificate ca = readCa(settings.caCert());
        if (settings.nodeCert() != null) {
            TlsMaterial node = loadPem(Settings.NODE_CERT, settings.nodeCert(), Settings.NODE_KEY, settings.nodeKey());
            X509Certificate leaf = node.certificate();
            if (!issuedBy(leaf, ca)) {
                throw new TlsException(Settings.NODE_CERT + " " + settings.nodeCert() + " ('"
                        + leaf.getSubjectX500Principal().getName() + "', issued by '"
                        + leaf.getIssuerX500Principal().getName() + "') is not issued by the CA in "
                        + Settings.CA_CERT + " " + settings.caCert() + " ('" + ca.getSubjectX500Principal().getName()
                        + "'): use a certificate from that CA", null);
            }
            checkValidity(Settings.NODE_CERT, settings.nodeCert(), leaf);
            if (!keyMatches(node.privateKey(), leaf)) {
                throw new TlsException(Settings.NODE_KEY + " " + settings.nodeKey() + " is not the key of "
                        + Settings.NODE_CERT + " " + settings.nodeCert(), null);
            }
            Set<String> sans = subjectAlternativeNames(leaf);
            for (String host : hosts) {
                if (!sans.contains(normalize(host))) {
                    throw new TlsException(Settings.NODE_CERT + " " + settings.nodeCert() + " does not name " + host
                            + " (its subject alternative names are " + sans + "): peers (or the node itself) dial"
                            + " it there and check the name; issue it a certificate that names " + host, null);
                }
            }
            return new ClusterTls(ca, withCa(node.chain(), ca), node.privateKey());
        }
        TlsMaterial caMaterial = loadPem(Settings.CA_CERT, settings.caCert(), Settings.CA_KEY, settings.caKey());
        if (!keyMatches(caMaterial.privateKey(), ca)) {
            throw new TlsException(Settings.CA_KEY + " " + settings.caKey() + " is not the key of the CA in "
                    + Settings.CA_CERT + " " + settings.caCert(), null);
        }
        Path certFile = tlsDir.resolve(NODE_CERT_FILE);
        Path keyFile = tlsDir.resolve(NODE_KEY_FILE);
        if (!extraHosts.isEmpty()) {
            java.util.LinkedHashSet<String> all = new java.util.LinkedHashSet<>(hosts);
            all.addAll(extraHosts);
            hosts = List.copyOf(all);
        }
        if (Files.exists(certFile) && Files.exists(keyFile)) {
            try {
                TlsMaterial existing = TlsMaterial.loadPem(certFile, keyFile);
                String why = unusable(existing.certificate(), ca, nodeId, hosts);
                if (why == null) {
                    return new ClusterTls(ca, withCa(existing.chain(), ca), existing.privateKey());
                }
                LOG.info("reissuing this node's certificate {}: {}", certFile, why);
            } catch (TlsException e) {
                LOG.warn("reissuing this node's certificate {}: it cannot be read ({})", certFile, e.getMessage());
            }
        }
        Issued issued = issue(ca, caMaterial.privateKey(), nodeId, hosts);
        writeIdentity(tlsDir, issued.chain(), issued.key());
        LOG.info("issued this node's certificate '{}' (names {}) into {}",
                issued.chain().get(0).getSubjectX500Principal().getName(), names(nodeId, hosts), certFile);
        return new ClusterTls(ca, issued.chain(), issued.key());
    }

    /** Why a self-issued certificate cannot be reused, or null if it can. */
    static String unusable(X509Certificate leaf, X509Certificate ca, String nodeId, List<String> hosts) {
        if (!issuedBy(leaf, ca)) {
            return "it is not issued by the CA in " + Settings.CA_CERT;
        }
        if (leaf.getNotAfter().toInstant().isBefore(Instant.now().plus(RENEW_BEFORE))) {
            return "it expires on " + leaf.getNotAfter().toInstant();
        }
        Set<String> sans = subjectAlternativeNames(leaf);
        for (String name : names(nodeId, hosts)) {
            if (!sans.contains(normalize(name))) {
                return "it does not name " + name;
            }
        }
        return null;
    }

    private static X509Certificate readCa(Path file) throws TlsException {
        if (!Files.isRegularFile(file)) {
            throw new TlsException(Settings.CA_CERT + " " + file + " does not exist", null);
        }
        List<X509Certificate> certs;
        try {
            certs = TlsMaterial.readCertificates(file);
        } catch (TlsException e) {
            throw new TlsException(Settings.CA_CERT + ": " + e.getMessage(), e);
        }
        X509Certificate ca = certs.get(0);
        if (ca.getBasicConstraints() < 0) {
            throw new TlsException(Settings.CA_CERT + " " + file + " ('" + ca.getSubjectX500Principal().getName()
                    + "') is not a CA certificate (no CA basic constraint)", null);
        }
        checkValidity(Settings.CA_CERT, file, ca);
        return ca;
    }

    private static TlsMaterial loadPem(String certSetting, Path cert, String keySetting, Path key) throws TlsException {
        if (!Files.isRegularFile(cert)) {
            throw new TlsException(certSetting + " " + cert + " does not exist", null);
        }
        if (!Files.isRegularFile(key)) {
            throw new TlsException(keySetting + " " + key + " does not exist", null);
        }
        try {
            return TlsMaterial.loadPem(cert, key);
        } catch (TlsException e) {
            throw new TlsException(certSetting + "/" + keySetting + ": " + e.getMessage(), e);
        }
    }

    private static void checkValidity(String setting, Path file, X509Certificate cert) throws TlsException {
        try {
            cert.checkValidity();
        } catch (GeneralSecurityException e) {
            throw new TlsException(setting + " " + file + " is not valid now (valid from "
                    + cert.getNotBefore().toInstant() + " to " + cert.getNotAfter().toInstant() + ")", e);
        }
    }

    /** Whether {@code key} is the private key of {@code cert} (a signature by one verifies with the other). */
    static boolean keyMatches(PrivateKey key, X509Certificate cert) {
        try {
            byte[] probe = new byte[32];
            RANDOM.nextBytes(probe);
            String algorithm = key.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256with" + key.getAlgorithm();
            java.security.Signature signer = java.security.Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            java.security.Signature verifier = java.security.Signature.getInstance(algorithm);
            verifier.initVerify(cert.getPublicKey());
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    static boolean issuedBy(X509Certificate leaf, X509Certificate ca) {
        if (!leaf.getIssuerX500Principal().equals(ca.getSubjectX500Principal())) {
            return false;
        }
        try {
            leaf.verify(ca.getPublicKey());
            return true;
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    private static List<X509Certificate> withCa(List<X509Certificate> chain, X509Certificate ca) {
        if (chain.contains(ca)) {
            return chain;
        }
        List<X509Certificate> out = new ArrayList<>(chain);
        out.add(ca);
        return out;
    }

    static Set<String> subjectAlternativeNames(X509Certificate cert) {
        Set<String> out = new LinkedHashSet<>();
        try {
            Collection<List<?>> sans = cert.getSubjectAlternativeNames();
            if (sans != null) {
                for (List<?> san : sans) {
                    if (san.size() >= 2 && san.get(1) instanceof String s) {
                        out.add(normalize(s));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            // no readable names
        }
        return out;
    }

    /** An IP literal in one canonical spelling (IPv6 has several); any other name as it is. */
    private static String normalize(String name) {
        if (!isIpLiteral(name)) {
            return name;
        }
        try {
            return InetAddress.getByName(name).getHostAddress();
        } catch (IOException e) {
            return name;
        }
    }

    private static List<String> names(String nodeId, List<String> hosts) {
        Set<String> names = new LinkedHashSet<>();
        names.add(nodeId);
        names.addAll(hosts);
        return List.copyOf(names);
    }

    // ------------------------------------------------------------------ issuing

    /**
     * Creates a cluster CA in {@code dir}: {@value #CA_CERT_FILE} and an owner-only {@value #CA_KEY_FILE}
     * (EC P-256, valid ten years, subject {@code CN=felix cluster CA <random>} so two CAs never look alike).
     * Refuses to overwrite an existing CA.
     */
    public static CaFiles createCa(Path dir) throws TlsException {
        Path cert = dir.resolve(CA_CERT_FILE);
        Path key = dir.resolve(CA_KEY_FILE);
        if (Files.exists(cert) || Files.exists(key)) {
            throw new TlsException("a CA exists already in " + dir + "; refusing to overwrite it", null);
        }
        try {
            KeyPair keys = newKeyPair();
            Instant now = Instant.now();
            byte[] tag = new byte[4];
            RANDOM.nextBytes(tag);
            X500Name subject = new X500Name("CN=felix cluster CA " + HexFormat.of().formatHex(tag));
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject, serial(),
                    Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(CA_VALIDITY)), subject,
                    keys.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            builder.addExtension(Extension.subjectKeyIdentifier, false,
                    ext.createSubjectKeyIdentifier(keys.getPublic()));
            X509Certificate ca = sign(builder, keys.getPrivate());
            writeIdentity(dir, List.of(ca), keys.getPrivate(), cert, key);
            return new CaFiles(cert, key);
        } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
            throw new TlsException("could not create a CA in " + dir + ": " + e.getMessage(), e);
        }
    }

    /**
     * Issues a certificate for node {@code nodeId} with the CA in {@code caDir} ({@link #createCa}'s files) into
     * {@code outDir}: {@value #NODE_CERT_FILE} (node certificate, then the CA's) and an owner-only
     * {@value #NODE_KEY_FILE}. Subject {@code CN=<nodeId>}; subject alternative names: {@code nodeId} and every
     * entry of {@code hosts} (IP literals as IP addresses, anything else as a DNS name); usable as TLS server
     * and client. Overwrites an earlier identity in {@code outDir}.
     */
    public static NodeFiles issueNode(Path caDir, String nodeId, List<String> hosts, Path outDir)
            throws TlsException {
        TlsMaterial caMaterial = TlsMaterial.loadPem(caDir.resolve(CA_CERT_FILE), caDir.resolve(CA_KEY_FILE));
        Issued issued = issue(caMaterial.certificate(), caMaterial.privateKey(), nodeId, hosts);
        writeIdentity(outDir, issued.chain(), issued.key());
        return new NodeFiles(outDir.resolve(NODE_CERT_FILE), outDir.resolve(NODE_KEY_FILE));
    }

    private record Issued(List<X509Certificate> chain, PrivateKey key) {
    }

    private static Issued issue(X509Certificate ca, PrivateKey caKey, String nodeId, List<String> hosts)
            throws TlsException {
        Objects.requireNonNull(nodeId, "nodeId");
        try {
            KeyPair keys = newKeyPair();
            List<GeneralName> sans = new ArrayList<>();
            for (String name : names(nodeId, hosts)) {
                sans.add(isIpLiteral(name)
                        ? new GeneralName(GeneralName.iPAddress, name)
                        : new GeneralName(GeneralName.dNSName, name));
            }
            Instant now = Instant.now();
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                    X500Name.getInstance(ca.getSubjectX500Principal().getEncoded()), serial(),
                    Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(NODE_VALIDITY)),
                    new X500Name("CN=" + nodeId), keys.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            builder.addExtension(Extension.keyUsage, true,
                    new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
            builder.addExtension(Extension.extendedKeyUsage, false,
                    new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth,
                            KeyPurposeId.id_kp_clientAuth}));
            builder.addExtension(Extension.subjectAlternativeName, false,
                    new DERSequence(sans.toArray(GeneralName[]::new)));
            builder.addExtension(Extension.subjectKeyIdentifier, false,
                    ext.createSubjectKeyIdentifier(keys.getPublic()));
            builder.addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(ca));
            X509Certificate leaf = sign(builder, caKey);
            return new Issued(List.of(leaf, ca), keys.getPrivate());
        } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
            throw new TlsException("could not issue a certificate for node " + nodeId + ": " + e.getMessage(), e);
        }
    }

    private static KeyPair newKeyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        return generator.generateKeyPair();
    }

    private static BigInteger serial() {
        return new BigInteger(64, RANDOM).add(BigInteger.ONE);
    }

    private static X509Certificate sign(JcaX509v3CertificateBuilder builder, PrivateKey key)
            throws OperatorCreationException, GeneralSecurityException {
        X509CertificateHolder holder = builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key));
        return new JcaX509CertificateConverter().getCertificate(holder);
    }

    private static void writeIdentity(Path dir, List<X509Certificate> chain, PrivateKey key) throws TlsException {
        try {
            writeIdentity(dir, chain, key, dir.resolve(NODE_CERT_FILE), dir.resolve(NODE_KEY_FILE));
        } catch (IOException e) {
            throw new TlsException("could not write the node certificate to " + dir + ": " + e.getMessage(), e);
        }
    }

    private static void writeIdentity(Path dir, List<X509Certificate> chain, PrivateKey key, Path certFile,
                                      Path keyFile) throws IOException {
        Files.createDirectories(dir);
        StringWriter certPem = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(certPem)) {
            for (X509Certificate c : chain) {
                writer.writeObject(c);
            }
        }
        StringWriter keyPem = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(keyPem)) {
            writer.writeObject(new JcaPKCS8Generator(key, null));
        }
        writeAtomically(keyFile, keyPem.toString(), true);
        writeAtomically(certFile, certPem.toString(), false);
    }

    private static void writeAtomically(Path target, String content, boolean ownerOnly) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp);
        if (ownerOnly) {
            try {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException ignored) {
                // not a POSIX file system: the platform's default permissions
            }
        }
        Files.writeString(tmp, content, StandardCharsets.US_ASCII);
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    static boolean isIpLiteral(String name) {
        if (name.indexOf(':') >= 0) {
            return true;
        }
        if (!IPV4.matcher(name).matches()) {
            return false;
        }
        try {
            InetAddress.getByName(name);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
