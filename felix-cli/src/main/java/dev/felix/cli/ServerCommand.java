package dev.felix.cli;

import dev.felix.server.FelixServer;
import dev.felix.server.HeapSoftMax;
import dev.felix.server.config.BrokerConfig;
import dev.felix.server.config.ConfigException;
import dev.felix.server.config.ConfigLoader;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code felix server}: runs a broker node until SIGTERM or SIGINT, then drains it and exits with status
 * 0 once the drain is done (a second signal during the drain exits at once with status 1).
 */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = {"Run a broker node; SIGTERM or Ctrl-C drains it and exits 0.",
                "",
                "With no options: data under ./data, QUIC on 127.0.0.1:5000, admin HTTP on 127.0.0.1:8080, a generated self-signed certificate, dev mode (any auth on loopback).",
                "",
                "Settings come from, lowest to highest: defaults, --config FILE (YAML), FELIX_<SETTING> environment variables, flags. See docs/configuration.md for every setting."})
final class ServerCommand implements Callable<Integer> {

    @Option(names = "--config", paramLabel = "FILE", defaultValue = "${env:FELIX_CONFIG}",
            description = "YAML configuration file (env FELIX_CONFIG). Default: none.")
    Path config;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "Data directory: logs, caches, the generated certificate. Default: ./data.")
    String dataDir;

    @Option(names = "--quic-bind", paramLabel = "HOST:PORT", description = "QUIC address. Default: 127.0.0.1:5000.")
    String quicBind;

    @Option(names = "--http-bind", paramLabel = "HOST:PORT",
            description = "Admin HTTP address (/live, /ready, /metrics). Default: 127.0.0.1:8080.")
    String httpBind;

    @Option(names = "--insecure", description = "Allow a non-loopback bind without authentication.")
    boolean insecure;

    @Option(names = "--node-id", paramLabel = "ID", description = "Cluster: this node's id (a-z, 0-9, '-'). Default: none.")
    String nodeId;

    @Option(names = "--raft-bind", paramLabel = "HOST:PORT",
            description = "Cluster: Raft (metadata) address; makes this node a cluster member. Port 0 picks one"
                    + " once. Default: none (a single node).")
    String raftBind;

    @Option(names = "--raft-advertise", paramLabel = "HOST:PORT",
            description = "Cluster: where other nodes dial this node's Raft address, when not at --raft-bind (a"
                    + " forwarded port). Default: the Raft bind.")
    String raftAdvertise;

    @Option(names = "--peer-bind", paramLabel = "HOST:PORT",
            description = "Cluster: replication address (QUIC, mutual TLS). Default: the Raft host, any port.")
    String peerBind;

    @Option(names = "--advertise-host", paramLabel = "HOST",
            description = "Cluster: host other nodes and clients reach this node at. Default: the QUIC host.")
    String advertiseHost;

    @Option(names = "--cluster-bootstrap", description = "Cluster: form a new cluster with this node as its first member.")
    boolean clusterBootstrap;

    @Option(names = "--cluster-join", paramLabel = "HOST:PORT",
            description = "Cluster: join the cluster through this member's Raft address. Default: none.")
    String clusterJoin;

    @Option(names = "--cluster-ca-cert", paramLabel = "FILE",
            description = "Cluster: CA certificate (PEM) of the cluster (felix cluster ca makes one). Default: none.")
    String clusterCa;

    @Option(names = "--cluster-ca-key", paramLabel = "FILE",
            description = "Cluster: CA private key (PEM); the node issues its own certificate with it. Default: none.")
    String clusterCaKey;

    @Option(names = "--set", paramLabel = "SETTING=VALUE",
            description = "Any setting of docs/configuration.md, e.g. --set ring_events=100000. Default: none.")
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
        putIfSet(flags, "node_id", nodeId);
        putIfSet(flags, "raft_bind", raftBind);
        putIfSet(flags, "raft_advertise", raftAdvertise);
        putIfSet(flags, "peer_bind", peerBind);
        putIfSet(flags, "advertise_host", advertiseHost);
        putIfSet(flags, "cluster_join", clusterJoin);
        putIfSet(flags, "cluster_ca_cert", clusterCa);
        putIfSet(flags, "cluster_ca_key", clusterCaKey);
        if (clusterBootstrap) {
            flags.put("cluster_bootstrap", "true");
        }
        FelixServer server;
        BrokerConfig cfg;
        try {
            cfg = ConfigLoader.load(config, System.getenv(), flags);
            HeapSoftMax.install(); // the process's heap, so here and not in FelixServer (tests run many in one JVM)
            server = FelixServer.start(cfg);
        } catch (ConfigException e) {
            throw new Errors.UsageException(e.getMessage());
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runnable drain = () -> {
            System.out.println("felix: shutting down (draining)...");
            System.out.flush();
            server.close();
            stopped.countDown();
        };
        if (!Signals.onTermination(drain)) {
            // No signal handling on this JVM: drain in a shutdown hook (the exit status is then 143 / 130).
            Runtime.getRuntime().addShutdownHook(new Thread(drain, "felix-shutdown"));
        }
        // Whatever else ends the JVM (System.exit elsewhere) still drains; close() is idempotent.
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "felix-shutdown-hook"));
        System.out.println("felix broker ready");
        System.out.println("  quic   " + server.quicAddress().getHostString() + ":" + server.quicAddress().getPort()
                + "  (TLS 1.3, ALPN felix/1)");
        System.out.println("  admin  http://" + server.httpAddress().getHostString() + ":"
                + server.httpAddress().getPort() + "  (/live /ready /metrics)");
        System.out.println("  data   " + cfg.dataDir());
        System.out.println("  cert   " + server.certificateFile() + "  SHA-256 " + server.fingerprint());
        System.out.println("  heap   " + server.heapPages().text());
        System.out.println("  netty  " + server.nettyMemory().text());
        if (server.cluster() != null) {
            var self = server.cluster().node(server.cluster().localNodeId()).orElseThrow();
            System.out.println("  node   " + self.nodeId() + "  (raft " + self.raftAddress() + ", peer " + self.peerAddress()
                    + "; cluster " + cfg.cluster().name() + ", " + server.cluster().nodes().size() + " node(s))");
        }
        System.out.println("  mode   " + (cfg.devMode()
                ? (cfg.clustered() ? "dev: any auth accepted on loopback; create streams explicitly (a cluster)"
                        : "dev: any auth accepted on loopback; streams are created on first use")
                : "static tokens for " + cfg.authTokens().size() + " tenant(s)"));
        System.out.flush();
        stopped.await();
        System.out.println("felix: stopped");
        System.out.flush();
        return 0;
    }

    private static void putIfSet(Map<String, String> flags, String key, String value) {
        if (value != null) {
            flags.put(key, value);
        }
    }

    /**
     * SIGTERM and SIGINT as a request to drain: the JVM's default for them is to run shutdown hooks and
     * exit with 128 + the signal number (143, 130), which tells a supervisor the process failed even
     * when it stopped cleanly. Uses {@code sun.misc.Signal} (module jdk.unsupported, present in every
     * JDK this runs on); returns false where it is missing.
     */
    static final class Signals {
        private Signals() {
        }

        static boolean onTermination(Runnable drain) {
            AtomicInteger received = new AtomicInteger();
            try {
                sun.misc.SignalHandler handler = signal -> {
                    if (received.getAndIncrement() == 0) {
                        Thread t = new Thread(drain, "felix-drain");
                        t.start();
                    } else {
                        System.err.println("felix: second " + signal + ": exiting without finishing the drain");
                        Runtime.getRuntime().halt(1);
                    }
                };
                sun.misc.Signal.handle(new sun.misc.Signal("TERM"), handler);
                sun.misc.Signal.handle(new sun.misc.Signal("INT"), handler);
                return true;
            } catch (LinkageError | IllegalArgumentException e) {
                return false;
            }
        }
    }
}
