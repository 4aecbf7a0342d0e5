package dev.felix.bench.common;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.server.FelixServer;
import dev.felix.server.config.BrokerConfig;
import dev.felix.server.config.ConfigLoader;
import dev.felix.server.config.HostPort;
import dev.felix.transport.ClientTrust;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * An in-process broker on loopback ports chosen by the OS, in a temporary data directory, for a
 * benchmark run. Clients connect to it over real QUIC with its certificate trusted.
 */
public final class BenchBroker implements AutoCloseable {

    private final FelixServer server;
    private final Path dataDir;

    private BenchBroker(FelixServer server, Path dataDir) {
        this.server = server;
        this.dataDir = dataDir;
    }

    /** Starts a broker; {@code settings} override config keys (e.g. {@code subscriber_queue_policy}). */
    public static BenchBroker start(Map<String, String> settings) throws Exception {
        Path dir = Files.createTempDirectory("felix-bench-");
        java.util.Map<String, String> flags = new java.util.HashMap<>(settings);
        flags.put("data_dir", dir.toString());
        flags.put("quic_bind", "127.0.0.1:0");
        flags.put("http_bind", "127.0.0.1:0");
        BrokerConfig config = ConfigLoader.load(null, Map.of(), flags);
        return new BenchBroker(FelixServer.start(config), dir);
    }

    public FelixServer server() {
        return server;
    }

    public HostPort address() {
        return new HostPort("127.0.0.1", server.quicAddress().getPort());
    }

    /** A new client connection (its own QUIC connection and event-loop thread). */
    public FelixClient connect(String tenant) {
        ClientConfig config = ClientConfig.builder(ClientTrust.certificates(server.tls().chain()))
                .broker(server.quicAddress())
                .tenant(tenant)
                .build();
        return FelixClient.connect(config);
    }

    @Override
    public void close() {
        server.close();
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temp directory left behind is harmless
        }
    }
}
