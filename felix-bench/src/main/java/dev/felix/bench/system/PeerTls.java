package dev.felix.bench.system;

import dev.felix.transport.TlsMaterial;
import java.nio.file.Path;
import java.security.KeyStore;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A TLS identity for a peer started with TLS: a fresh self-signed EC P-256 certificate for
 * {@code localhost}/{@code 127.0.0.1} (generated with BouncyCastle, as Felix's own development
 * certificate is), written as PEM for the peer's server, and a client {@link SSLContext} that trusts
 * exactly that certificate. Each run gets its own, like each Felix broker does.
 *
 * @param cert PEM certificate file
 * @param key  PEM (PKCS#8) private key file
 * @param client client context trusting {@code cert}
 */
public record PeerTls(Path cert, Path key, SSLContext client) {

    public static PeerTls create(Path dir) throws Exception {
        TlsMaterial material = TlsMaterial.generateSelfSigned(java.util.List.of());
        material.writePem(dir);
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        trust.setCertificateEntry("peer", material.certificate());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return new PeerTls(dir.resolve(TlsMaterial.CERT_FILE), dir.resolve(TlsMaterial.KEY_FILE), context);
    }
}
