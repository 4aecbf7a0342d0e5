package dev.felix.cluster.tls;

import java.security.cert.CertificateException;

/**
 * {@link ClusterTls#trustManager()} refused a peer's certificate; the message names the certificate's subject,
 * its issuer and why (e.g. it does not chain to the cluster CA). Transports find it in the cause chain of a
 * failed handshake to log the refusal with the peer's address.
 */
public final class CertificateRefusedException extends CertificateException {
    private static final long serialVersionUID = 1L;

    CertificateRefusedException(String message, Throwable cause) {
        super(message, cause);
    }
}
