package dev.felix.cli;

import dev.felix.server.FelixServer;
import dev.felix.server.config.BrokerConfig;
import dev.felix.server.config.ConfigException;
import dev.felix.server.config.ConfigLoader;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code felix server}: runs a broker node until SIGTERM/SIGINT, then drains and exits. */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = {
            "Run a broker. With no options: data under ./data, QUIC on 127.0.0.1:5000, admin HTTP on",
            "127.0.0.1:8080, a generated self-signed certificate, dev mode (any auth on loopback).",
            "",
            "Settings come from, lowest to highest: defaults, --config FILE (YAML), FELIX_<SETTING>",
            "environment variables, flags. See docs/configuration.md for every setting."
        })
final class ServerCommand implements Callable<Integer> {

    @Option(names = "--config", paramLabel = "FILE", defaultValue = "${env:FELIX_CONFIG}",
            description = "YAML configuration file (env FELIX_CONFIG)")
    Path config;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "data directory (default ./data)")
    String dataDir;

    @Option(names = "--quic-bind", paramLabel = "HOST:PORT", description = "QUIC address (default 127.0.0.1:5000)")
    String quicBind;

    @Option(names = "--http-bind", paramLabel = "HOST:PORT", description = "admin HTTP address (default 127.0.0.1:8080)")
    String httpBind;

    @Option(names = "--insecure", description = "allow a non-loopback bind without authentication")
    boolean insecure;

    @Option(names = "--set", paramLabel = "SETTING=VALUE", description = "any setting, e.g. --set ring_events=100000")
    List<String> sets = List.of();

    @Override
    public Integer call() throws Exception {
        Map<String, String> flags = new LinkedHashMap<>();
        for (String s : sets) {
            int eq = s.indexOf('=');
            if (eq <= 0) {
                throw new Errors.UsageException("--set expects SETTING=VALUE, got '" + s + "'");
            }
            flags.put(s.substring(0, eq).trim(), s.substring(eq + 1).trim());
        }
        if (dataDir != null) {
            flags.put("data_dir", dataDir);
        }
        if (quicBind != null) {
            flags.put("quic_bind", quicBind);
        }
        if (httpBind != null) {
            flags.put("http_bind", httpBind);
        }
        if (insecure) {
            flags.put("insecure", "true");
        }
        BrokerConfig cfg;
        try {
            cfg = ConfigLoader.load(config, System.getenv(), flags);
        } catch (ConfigException e) {
            throw new Errors.UsageException(e.getMessage());
        }
        FelixServer server = FelixServer.start(cfg);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("felix: shutting down (draining)...");
            server.close();
            stopped.countDown();
        }, "felix-shutdown"));
        System.out.println("felix broker ready");
        System.out.println("  quic   " + server.quicAddress().getHostString() + ":" + server.quicAddress().getPort()
                + "  (TLS 1.3, ALPN felix/1)");
        System.out.println("  admin  http://" + server.httpAddress().getHostString() + ":"
                + server.httpAddress().getPort() + "  (/live /ready /metrics)");
        System.out.println("  data   " + cfg.dataDir());
        System.out.println("  cert   " + server.certificateFile() + "  SHA-256 " + server.fingerprint());
        System.out.println("  mode   " + (cfg.devMode()
                ? "dev: any auth accepted on loopback; streams are created on first use"
                : "static tokens for " + cfg.authTokens().size() + " tenant(s)"));
        System.out.flush();
        stopped.await();
        return 0;
    }
}
