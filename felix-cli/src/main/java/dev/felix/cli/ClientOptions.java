package dev.felix.cli;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.server.config.HostPort;
import dev.felix.transport.ClientTrust;
import dev.felix.transport.TlsException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Options every client command shares: where the broker is and how to trust it. */
final class ClientOptions {

    @Option(names = "--broker", paramLabel = "HOST:PORT", defaultValue = "${env:FELIX_BROKER:-127.0.0.1:5000}",
            description = "broker address (env FELIX_BROKER; default ${DEFAULT-VALUE})")
    String broker;

    @Option(names = "--ca", paramLabel = "FILE", defaultValue = "${env:FELIX_CA:-./data/tls/cert.pem}",
            description = "PEM certificate(s) to trust: the broker's CA or its self-signed certificate"
                    + " (env FELIX_CA; default ${DEFAULT-VALUE}, what a local 'felix server' generates)")
    Path ca;

    @Option(names = "--fingerprint", paramLabel = "SHA256",
            description = "trust exactly the broker certificate with this SHA-256 fingerprint instead of --ca")
    String fingerprint;

    @Option(names = "--server-name", paramLabel = "NAME",
            description = "name the broker certificate must carry (default: localhost for loopback, else the host)")
    String serverName;

    @Option(names = "--token", paramLabel = "TOKEN", defaultValue = "${env:FELIX_TOKEN:-dev}",
            description = "token for auth (env FELIX_TOKEN); any token works against a dev-mode broker")
    String token;

    /** Connects as {@code tenant}. */
    FelixClient connect(String tenant) {
        ClientTrust trust;
        if (fingerprint != null) {
            trust = ClientTrust.pinnedFingerprint(fingerprint);
        } else {
            if (!Files.exists(ca)) {
                throw new Errors.UsageException("cannot trust the broker: " + ca + " does not exist. Start a broker"
                        + " in this directory (felix server), or pass --ca FILE / --fingerprint SHA256.");
            }
            try {
                trust = ClientTrust.certificates(ca);
            } catch (TlsException e) {
                throw new Errors.UsageException(e.getMessage());
            }
        }
        HostPort address;
        try {
            address = HostPort.parse(broker);
        } catch (IllegalArgumentException e) {
            throw new Errors.UsageException("--broker: " + e.getMessage());
        }
        ClientConfig.Builder b = ClientConfig.builder(trust)
                .broker(address.toSocketAddress())
                .tenant(tenant)
                .token(token);
        if (serverName != null) {
            b.serverName(serverName);
        }
        return FelixClient.connect(b.build());
    }
}
