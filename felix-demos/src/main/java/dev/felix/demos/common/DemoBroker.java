package dev.felix.demos.common;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.server.FelixServer;
import dev.felix.server.config.ConfigLoader;
import dev.felix.transport.ClientTrust;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * A fresh in-process broker for one demo run: loopback ports chosen by the OS, a temporary data
 * directory, a generated certificate the demo's clients trust. Every run gets its own, so one mode's
 * queues, counters and logs never leak into the next.
 *
 * <p>{@code FELIX_*} environment variables are deliberately not read: the demo's point is what each
 * checkpoint is set to, so only the settings the mode passes apply.
 */
public final class DemoBroker implements AutoCloseable {

    private final FelixServer server;
    private final Path dataDir;

    private DemoBroker(FelixServer server, Path dataDir) {
        this.server = server;
        this.dataDir = dataDir;
    }

    /** Starts a broker with {@code settings} (configuration keys, e.g. {@code subscriber_queue_policy}). */
    public static DemoBroker start(Map<String, String> settings) throws Exception {
        Path dir = Files.createTempDirectory("felix-demo-");
        Map<String, String> flags = new HashMap<>(settings);
        flags.put("data_dir", dir.toString());
        flags.put("quic_bind", "127.0.0.1:0");
        flags.put("http_bind", "127.0.0.1:0");
        try {
            return new DemoBroker(FelixServer.start(ConfigLoader.load(null, Map.of(), flags)), dir);
        } catch (Exception e) {
            deleteTree(dir);
            throw e;
        }
    }

    public FelixServer server() {
        return server;
    }

    /**
     * A new client with its own QUIC connection (and so its own event loop), as each demo consumer and
     * the publisher have upstream. {@code customize} sets the mode's client-side checkpoints.
     */
    public FelixClient connect(UnaryOperator<ClientConfig.Builder> customize) {
        ClientConfig.Builder builder = ClientConfig.builder(ClientTrust.certificates(server.tls().chain()))
                .broker(server.quicAddress())
                .tenant("t1");
        return FelixClient.connect(customize.apply(builder).build());
    }

    /** The broker's Prometheus text, as {@code /metrics} would serve it. */
    public String scrape() {
        return server.metrics().scrape();
    }

    @Override
    public void close() {
        server.close();
        deleteTree(dataDir);
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind is harmless
        }
    }
}
