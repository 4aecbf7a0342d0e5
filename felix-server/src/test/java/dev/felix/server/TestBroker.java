package dev.felix.server;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.server.config.BrokerConfig;
import dev.felix.server.config.ConfigLoader;
import dev.felix.transport.ClientTrust;
import dev.felix.transport.TransportConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A real broker on loopback (ports chosen by the OS) in a directory the test owns (usually its
 * {@code @TempDir}), with clients that trust its generated certificate: the one in-process broker fixture
 * of every module's tests. Other modules get it from felix-server's test-jar ({@code <type>test-jar</type>},
 * which holds this class only); it cannot live in a module of its own, because felix-server's tests use it
 * and a module that starts a broker depends on felix-server. Process-level tests use
 * {@code dev.felix.testing.BrokerProcess} (module felix-testing).
 *
 * <p>Thread-safe as far as the broker and clients are; one test starts and closes it.
 */
public final class TestBroker implements AutoCloseable {

    private final FelixServer server;

    private TestBroker(FelixServer server) {
        this.server = server;
    }

    public static TestBroker start(Path dataDir) throws Exception {
        return start(dataDir, Map.of());
    }

    /** Starts a broker with {@code settings} (config keys) on top of the defaults. */
    public static TestBroker start(Path dataDir, Map<String, String> settings) throws Exception {
        Map<String, String> flags = new HashMap<>(settings);
        flags.put("data_dir", dataDir.toString());
        flags.putIfAbsent("quic_bind", "127.0.0.1:0");
        flags.putIfAbsent("http_bind", "127.0.0.1:0");
        BrokerConfig config = ConfigLoader.load(null, Map.of(), flags);
        return new TestBroker(FelixServer.start(config));
    }

    public FelixServer server() {
        return server;
    }

    /** A client configuration trusting this broker's certificate, for tenant t1. */
    public ClientConfig.Builder clientConfig() {
        return ClientConfig.builder(ClientTrust.certificates(server.tls().chain()))
                .broker(server.quicAddress())
                .tenant("t1");
    }

    public FelixClient connect() {
        return FelixClient.connect(clientConfig().build());
    }

    public FelixClient connect(Consumer<ClientConfig.Builder> customize) {
        ClientConfig.Builder b = clientConfig();
        customize.accept(b);
        return FelixClient.connect(b.build());
    }

    /** A transport configuration with a small per-stream window, so a stalled reader backs up quickly. */
    public static TransportConfig smallWindows(long streamWindow) {
        return TransportConfig.defaults().withStreamWindowBytes(streamWindow)
                .withConnectionWindowBytes(Math.max(streamWindow * 4, 1 << 20));
    }

    public String scrapeMetrics() throws Exception {
        var http = java.net.http.HttpClient.newHttpClient();
        var response = http.send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + server.httpAddress().getPort() + "/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        return response.body();
    }

    @Override
    public void close() {
        server.close();
    }
}
