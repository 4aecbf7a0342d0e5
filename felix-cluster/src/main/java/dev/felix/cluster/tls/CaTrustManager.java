package dev.felix.cluster.tls;

import dev.felix.transport.TlsException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Trusts exactly the certificates chained to one CA, for both ends of a mutual-TLS connection, and says why
 * it refused one.
 *
 * <p>The checks are the JDK's PKIX validation with the cluster CA as the only trust anchor (so validity
 * dates, key usages and, when the TLS stack sets an endpoint identification algorithm, the peer's host name
 * are checked as usual). A refusal throws a {@link CertificateException} naming the certificate's subject and
 * issuer and why; when the peer's address is known (the connecting side: the engine carries the host and
 * port it dialled) the refusal is also logged at WARN with that address, at most once per peer host every
 * {@value #LOG_EVERY_MS} ms (a peer retrying in a loop must not flood the log). The accepting side does not
 * know the address here; its transport logs the failed handshake with the remote address and this message.
 *
 * <p><b>Threads.</b> Thread-safe; called on TLS handshake threads.
 */
final class CaTrustManager extends X509ExtendedTrustManager {

    private static final Logger LOG = LoggerFactory.getLogger(CaTrustManager.class);
    /** Least time between two logged refusals of the same peer host. */
    static final long LOG_EVERY_MS = 10_000;

    private final X509Certificate ca;
    private final X509ExtendedTrustManager pkix;
    private final AtomicLong refusals = new AtomicLong();
    private final ConcurrentHashMap<String, Long> lastLogged = new ConcurrentHashMap<>();
    private volatile String lastRefusal;

    CaTrustManager(X509Certificate ca) throws TlsException {
        this.ca = ca;
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setCertificateEntry("cluster-ca", ca);
            TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
            factory.init(store);
            X509ExtendedTrustManager found = null;
            for (TrustManager tm : factory.getTrustManagers()) {
                if (tm instanceof X509ExtendedTrustManager x) {
                    found = x;
                }
            }
            if (found == null) {
                throw new TlsException("the JDK offers no PKIX trust manager", null);
            }
            this.pkix = found;
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new TlsException("could not build a trust manager for the cluster CA: " + e.getMessage(), e);
        }
    }

    long refusals() {
        return refusals.get();
    }

    String lastRefusal() {
        return lastRefusal;
    }

    @FunctionalInterface
    private interface Check {
        void run() throws CertificateException;
    }

    private void check(Check check, X509Certificate[] chain, String role, String peerHost, int peerPort)
            throws CertificateException {
        try {
            check.run();
        } catch (CertificateException e) {
            refusals.incrementAndGet();
            if (e instanceof CertificateRefusedException) {
                throw e;
            }
            String why = describe(chain, role, e);
            String peer = peerHost == null ? null : peerHost + (peerPort > 0 ? ":" + peerPort : "");
            lastRefusal = peer == null ? why : "peer " + peer + ": " + why;
            if (peer != null && shouldLog(peerHost)) {
                LOG.warn("refused the TLS peer {}: {}", peer, why);
            }
            throw new CertificateRefusedException(why, e);
        }
    }

    private boolean shouldLog(String host) {
        long now = System.currentTimeMillis();
        Long before = lastLogged.get(host);
        if (before != null && now - before < LOG_EVERY_MS) {
            return false;
        }
        lastLogged.put(host, now);
        return true;
    }

    /** Words for a refusal: whose certificate, issued by whom, and why. */
    String describe(X509Certificate[] chain, String role, CertificateException e) {
        if (chain == null || chain.length == 0) {
            return "the " + role + " sent no certificate";
        }
        X509Certificate leaf = chain[0];
        String subject = leaf.getSubjectX500Principal().getName();
        String issuer = leaf.getIssuerX500Principal().getName();
        String caName = ca.getSubjectX500Principal().getName();
        boolean fromCa = ClusterTls.issuedBy(leaf, ca);
        for (int i = 1; i < chain.length && !fromCa; i++) {
            fromCa = ClusterTls.issuedBy(chain[i], ca); // through an intermediate
        }
        if (!fromCa) {
            return "the " + role + " certificate '" + subject + "' (issued by '" + issuer
                    + "') does not chain to the cluster CA '" + caName + "'";
        }
        return "the " + role + " certificate '" + subject + "' (issued by '" + issuer + "') was refused: "
                + e.getMessage();
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(() -> pkix.checkClientTrusted(chain, authType), chain, "client", null, -1);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(() -> pkix.checkServerTrusted(chain, authType), chain, "server", null, -1);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        check(() -> pkix.checkClientTrusted(chain, authType, socket), chain, "client",
                socket == null || socket.getInetAddress() == null ? null : socket.getInetAddress().getHostAddress(),
                socket == null ? -1 : socket.getPort());
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        check(() -> pkix.checkServerTrusted(chain, authType, socket), chain, "server",
                socket == null || socket.getInetAddress() == null ? null : socket.getInetAddress().getHostAddress(),
                socket == null ? -1 : socket.getPort());
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        check(() -> pkix.checkClientTrusted(chain, authType, engine), chain, "client",
                engine == null ? null : engine.getPeerHost(), engine == null ? -1 : engine.getPeerPort());
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        check(() -> pkix.checkServerTrusted(chain, authType, engine), chain, "server",
                engine == null ? null : engine.getPeerHost(), engine == null ? -1 : engine.getPeerPort());
    }

    /**
     * Empty on purpose: the TLS server names these issuers in its certificate request, and a client whose
     * certificate is from another CA would then send none at all, leaving nothing to refuse by name. With no
     * names a peer sends the certificate it has, and a refusal names its subject and issuer.
     */
    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
    }
}
