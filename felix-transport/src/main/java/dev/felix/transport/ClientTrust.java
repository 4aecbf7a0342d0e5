package dev.felix.transport;

import java.net.Socket;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * How a client decides to trust a broker's certificate: either a set of trusted certificates (a CA
 * bundle, or the broker's own self-signed certificate), or a pinned SHA-256 fingerprint of the
 * broker's leaf certificate.
 */
public sealed interface ClientTrust {

    /** Trust anchors read from a PEM file (a CA, or the broker's self-signed certificate). */
    static ClientTrust certificates(Path pemFile) throws TlsException {
        return new Anchors(TlsMaterial.readCertificates(pemFile));
    }

    /** Trust anchors given directly. */
    static ClientTrust certificates(List<X509Certificate> anchors) {
        return new Anchors(List.copyOf(anchors));
    }

    /** Trusts exactly the leaf certificate with this SHA-256 fingerprint (hex, colons optional). */
    static ClientTrust pinnedFingerprint(String fingerprint) {
        return new Pinned(normalize(fingerprint));
    }

    /** The JSSE trust manager implementing this policy. */
    TrustManager trustManager() throws TlsException;

    /** Certificates used as trust anchors. */
    record Anchors(List<X509Certificate> anchors) implements ClientTrust {
        @Override
        public TrustManager trustManager() throws TlsException {
            try {
                KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
                store.load(null, null);
                int i = 0;
                for (X509Certificate anchor : anchors) {
                    store.setCertificateEntry("anchor-" + i++, anchor);
                }
                TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                factory.init(store);
                return factory.getTrustManagers()[0];
            } catch (Exception e) {
                throw new TlsException("could not build a trust store: " + e.getMessage(), e);
            }
        }
    }

    /** A pinned leaf-certificate fingerprint; the certificate's names are not checked. */
    record Pinned(String fingerprint) implements ClientTrust {
        @Override
        public TrustManager trustManager() {
            return new PinnedTrustManager(fingerprint);
        }
    }

    private static String normalize(String fingerprint) {
        String hex = fingerprint.replace(":", "").toUpperCase(Locale.ROOT);
        if (!hex.matches("[0-9A-F]{64}")) {
            throw new IllegalArgumentException("a SHA-256 fingerprint is 64 hex digits, got: " + fingerprint);
        }
        return hex;
    }

    /** Accepts a server whose leaf certificate has the pinned fingerprint, and nothing else. */
    final class PinnedTrustManager extends X509ExtendedTrustManager {
        private final String fingerprint;

        PinnedTrustManager(String fingerprint) {
            this.fingerprint = fingerprint;
        }

        private void check(X509Certificate[] chain) throws CertificateException {
            if (chain == null || chain.length == 0) {
                throw new CertificateException("server sent no certificate");
            }
            String actual = TlsMaterial.fingerprint(chain[0]).replace(":", "");
            if (!actual.equals(fingerprint)) {
                throw new CertificateException("server certificate fingerprint " + actual
                        + " does not match the pinned " + fingerprint);
            }
            chain[0].checkValidity();
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            check(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            check(chain);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("client certificates are not used");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            throw new CertificateException("client certificates are not used");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            throw new CertificateException("client certificates are not used");
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
