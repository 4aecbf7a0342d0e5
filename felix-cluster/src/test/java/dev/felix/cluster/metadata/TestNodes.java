package dev.felix.cluster.metadata;

import dev.felix.cluster.ReplicaReport;
import dev.felix.cluster.ReplicaReporter;
import dev.felix.cluster.tls.ClusterTls;
import dev.felix.core.FelixException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Real {@link RaftMetadata} nodes in this JVM, each with its own data dir under {@code root}, Raft on a
 * loopback port picked at first start (raft_bind port 0), TLS from one cluster CA (each node issues its own
 * certificate with the CA key). Every node's replica reports come from {@link #report}, which the test sets.
 * Short timings: heartbeat {@value #HEARTBEAT_MS} ms, failure timeout {@value #FAILURE_MS} ms, request timeout
 * {@value #REQUEST_MS} ms.
 */
final class TestNodes implements AutoCloseable {

    static final long HEARTBEAT_MS = 100;
    static final long FAILURE_MS = 1000;
    static final long REQUEST_MS = 2000;
    static final long START_MS = 20_000;

    private static final AtomicInteger CLIENT_PORTS = new AtomicInteger(20_000);

    final Path root;
    final ClusterTls.CaFiles ca;
    final Map<String, RaftMetadata> running = new LinkedHashMap<>();
    final Map<String, List<ReplicaReport>> reports = new ConcurrentHashMap<>();
    /** Each node's meters (a fresh registry per start). */
    final Map<String, io.micrometer.core.instrument.simple.SimpleMeterRegistry> registries = new ConcurrentHashMap<>();

    TestNodes(Path root) {
        this.root = root;
        try {
            Path caDir = root.resolve("ca");
            Files.createDirectories(caDir);
            this.ca = ClusterTls.createCa(caDir);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    Path dataDir(String id) {
        return root.resolve(id);
    }

    ClusterSettings.Builder settings(String id) {
        return ClusterSettings.builder()
                .nodeId(id)
                .raftBind("127.0.0.1:0")
                .heartbeatInterval(Duration.ofMillis(HEARTBEAT_MS))
                .failureTimeout(Duration.ofMillis(FAILURE_MS))
                .requestTimeout(Duration.ofMillis(REQUEST_MS))
                .startTimeout(Duration.ofMillis(START_MS))
                .tls(ClusterTls.Settings.selfIssued(ca.cert(), ca.key()))
                .dataDir(dataDir(id));
    }

    ReplicaReporter reporter(String id) {
        return () -> reports.getOrDefault(id, List.of());
    }

    /** Sets what node {@code id} reports from now on. */
    void report(String id, ReplicaReport... r) {
        reports.put(id, List.of(r));
    }

    RaftMetadata bootstrap(String id) throws FelixException {
        return start(settings(id).bootstrap(true).build());
    }

    RaftMetadata join(String id, RaftMetadata through) throws FelixException {
        return start(settings(id).join(through.raftAddress()).build());
    }

    /** Starts (or restarts) node {@code id} from its data dir, without bootstrap or join. */
    RaftMetadata restart(String id) throws FelixException {
        return start(settings(id).build());
    }

    RaftMetadata start(ClusterSettings s) throws FelixException {
        int port = CLIENT_PORTS.getAndAdd(2);
        var registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        RaftMetadata m = RaftMetadata.start(s, NodeAddresses.of("127.0.0.1:" + port, "127.0.0.1:" + (port + 1)),
                reporter(s.nodeId()), registry);
        registries.put(s.nodeId(), registry);
        running.put(s.nodeId(), m);
        return m;
    }

    /**
     * Bootstraps n1 and joins n2..n{count} through it; returns once every node sees every node up and in the Raft
     * configuration.
     */
    List<RaftMetadata> cluster(int count) throws FelixException {
        List<RaftMetadata> out = new ArrayList<>();
        RaftMetadata first = bootstrap("n1");
        out.add(first);
        for (int i = 2; i <= count; i++) {
            out.add(join("n" + i, first));
        }
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> out.stream().allMatch(m ->
                m.nodes().size() == count && m.nodes().stream().allMatch(dev.felix.cluster.NodeInfo::up)
                        && m.raftStatus().members().size() == count));
        return out;
    }

    RaftMetadata node(String id) {
        return running.get(id);
    }

    void stop(String id) {
        RaftMetadata m = running.remove(id);
        if (m != null) {
            m.close();
        }
    }

    /** The running node that currently leads the metadata group, if one does. */
    RaftMetadata raftLeader() {
        for (RaftMetadata m : running.values()) {
            if (m.raftStatus().leader()) {
                return m;
            }
        }
        return null;
    }

    @Override
    public void close() {
        for (String id : new ArrayList<>(running.keySet())) {
            stop(id);
        }
    }

    static void deleteTree(Path p) {
        if (!Files.exists(p)) {
            return;
        }
        try (var s = Files.walk(p)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(f -> {
                try {
                    Files.delete(f);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
