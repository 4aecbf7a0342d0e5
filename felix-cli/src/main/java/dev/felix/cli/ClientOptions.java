package dev.felix.cli;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.FelixCluster;
import dev.felix.server.config.HostPort;
import dev.felix.transport.ClientTrust;
import dev.felix.transport.TlsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import dev.felix.wire.ErrorCode;
import picocli.CommandLine.Option;

/** Options every client command shares: where the broker is, how to trust it, and the token. */
final class ClientOptions {

    @Option(names = "--broker", paramLabel = "HOST:PORT[,HOST:PORT...]", split = ",",
            defaultValue = "${env:FELIX_BROKER:-127.0.0.1:5000}", converter = OptionTypes.Address.class,
            description = "Broker address, or several nodes of one cluster separated by commas (env FELIX_BROKER):"
                    + " a command uses the first that answers, and pub sends each message to the leader of its"
                    + " shard. Default: ${DEFAULT-VALUE}.")
    List<HostPort> brokers;

    @Option(names = "--ca", paramLabel = "FILE", defaultValue = "${env:FELIX_CA:-./data/tls/cert.pem}",
            description = "PEM certificate(s) to trust: the broker's CA or its self-signed certificate"
                    + " (env FELIX_CA). Default: ${DEFAULT-VALUE}, what a local 'felix server' generates.")
    Path ca;

    @Option(names = "--fingerprint", paramLabel = "SHA256", converter = OptionTypes.Fingerprint.class,
            description = "Trust exactly the broker certificate with this SHA-256 fingerprint (64 hex digits,"
                    + " colons optional, as 'felix server' prints it) instead of --ca. Default: none.")
    String fingerprint;

    @Option(names = "--server-name", paramLabel = "NAME",
            description = "Name the broker certificate must carry. Default: localhost for a loopback broker,"
                    + " else the --broker host.")
    String serverName;

    @Option(names = "--token", paramLabel = "TOKEN", defaultValue = "${env:FELIX_TOKEN}",
            description = "Token for the tenant, as configured in the broker's auth_tokens (env FELIX_TOKEN)."
                    + " Default: none, which a dev-mode broker accepts.")
    String token;

    /** Whether a token was given (flag or environment); a dev-mode broker needs none. */
    boolean tokenGiven() {
        return token != null && !token.isEmpty();
    }

    /** The --broker addresses as given, for messages. */
    String brokersText() {
        return brokers.stream().map(HostPort::toString).collect(Collectors.joining(","));
    }

    /** Connects as {@code tenant} to the first --broker address that answers. */
    FelixClient connect(String tenant) {
        FelixClientException last = null;
        for (HostPort b : brokers) {
            try {
                return connect(tenant, b.toSocketAddress());
            } catch (FelixClientException e) {
                if (e.code() != ErrorCode.CONNECTION_LOST) {
                    throw e;
                }
                last = e; // this node is down: try the next one
            }
        }
        throw last;
    }

    /** A client of the cluster whose nodes --broker lists, as {@code tenant}. */
    FelixCluster cluster(String tenant) {
        return FelixCluster.connect(config(tenant, brokers.get(0).toSocketAddress()),
                brokers.stream().map(HostPort::toSocketAddress).toList());
    }

    /** Connects as {@code tenant} to {@code address} (another node of the --broker's cluster). */
    FelixClient connect(String tenant, java.net.InetSocketAddress address) {
        return FelixClient.connect(config(tenant, address));
    }

    private ClientConfig config(String tenant, java.net.InetSocketAddress address) {
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
                throw new Errors.UsageException("--ca " + ca + ": " + e.getMessage());
            }
        }
        ClientConfig.Builder b = ClientConfig.builder(trust)
                .broker(address)
                .tenant(tenant)
                .token(tokenGiven() ? token : "dev");
        if (serverName != null) {
            b.serverName(serverName);
        }
        return b.build();
    }
}
