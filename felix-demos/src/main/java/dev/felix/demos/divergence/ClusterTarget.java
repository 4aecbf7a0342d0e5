package dev.felix.demos.divergence;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.demos.cluster.LocalCluster;
import dev.felix.demos.cluster.NodeProcess;
import dev.felix.wire.ClusterShardStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * The watch mode's broker side as a cluster of {@code felix server} processes on this machine ({@link LocalCluster},
 * nodes {@code n1..nN}, under a temporary directory removed at {@link #close}). The cache is created through
 * {@code n1}; the cluster places it (a memory cache lives on one node, its leader), and the writer and every
 * mirror then connect to that node — cache operations and watches go to a cache's leader, as they would for
 * any client that followed a {@code not_leader} redirect. The run itself does not change.
 *
 * <p>Node settings are the cluster defaults: the watch mode sets no broker setting.
 */
final class ClusterTarget implements DivergenceTarget {

    /** How long the cluster may take to place the cache and report its leader (it is already up). */
    private static final Duration PLACEMENT_TIMEOUT = Duration.ofSeconds(30);

    private final Path dir;
    private final LocalCluster cluster;
    private volatile String leader;

    private ClusterTarget(Path dir, LocalCluster cluster) {
        this.dir = dir;
        this.cluster = cluster;
    }

    static ClusterTarget start(int nodes) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("felix-divergence-cluster-");
        try {
            return new ClusterTarget(dir, LocalCluster.start(dir, nodes, List.of()));
        } catch (IOException | InterruptedException | RuntimeException e) {
            deleteTree(dir);
            throw e;
        }
    }

    @Override
    public FelixClient connectAdmin(UnaryOperator<ClientConfig.Builder> customize) {
        return FelixClient.connect(customize.apply(cluster.clientConfig("n1")).build());
    }

    @Override
    public FelixClient home(FelixClient admin, UnaryOperator<ClientConfig.Builder> customize)
            throws InterruptedException {
        ClusterShardStatus cache = cluster.awaitCache("n1", CacheSource.CACHE.toString(), PLACEMENT_TIMEOUT,
                s -> s.leader() != null && "online".equals(s.status()), "placing cache " + CacheSource.CACHE);
        leader = cache.leader();
        return connect(customize);
    }

    @Override
    public FelixClient connect(UnaryOperator<ClientConfig.Builder> customize) {
        String at = leader;
        if (at == null) {
            throw new IllegalStateException("the cache's leader is not known yet (call home first)");
        }
        return FelixClient.connect(customize.apply(cluster.clientConfig(at)).build());
    }

    /** The leader's {@code /metrics}: the node every watch and put of the run went to. */
    @Override
    public String scrape() {
        try {
            return cluster.node(leader).metricsText();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read node " + leader + "'s /metrics: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading node " + leader + "'s /metrics", e);
        }
    }

    @Override
    public String describe() {
        StringBuilder s = new StringBuilder("brokers               " + cluster.nodes().size()
                + " felix server processes (");
        for (NodeProcess n : cluster.nodes()) {
            s.append(n.id()).append(n == cluster.nodes().get(cluster.nodes().size() - 1) ? "" : ", ");
        }
        s.append(") in one cluster; the cache on ").append(leader == null ? "its leader" : leader)
                .append(", the writer and every mirror connected there");
        return s.toString();
    }

    @Override
    public void close() {
        cluster.close();
        deleteTree(dir);
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind is harmless
        }
    }
}
