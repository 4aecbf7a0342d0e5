package dev.felix.demos.cluster;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixCluster;
import dev.felix.client.FelixClientException;
import dev.felix.cluster.tls.ClusterTls;
import dev.felix.transport.ClientTrust;
import dev.felix.transport.TlsException;
import dev.felix.wire.ClusterShardStatus;
import dev.felix.wire.Message;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A cluster of {@link NodeProcess}es on this machine, with a cluster CA of its own, and clients that trust
 * that CA. Nodes are named {@code n1..nN}; {@code n1} bootstraps and the others join through it.
 *
 * <p>Not thread-safe: one thread drives it. {@link #close()} kills every node.
 */
public final class LocalCluster implements AutoCloseable {

    private final Path dir;
    private final ClusterTls.CaFiles ca;
    private final Map<String, NodeProcess> nodes = new LinkedHashMap<>();
    /** With {@link #startBehindProxies}: the proxy in front of each node's Raft endpoint. */
    private final Map<String, TcpProxy> proxies = new LinkedHashMap<>();
    private final List<String> extra;

    private LocalCluster(Path dir, ClusterTls.CaFiles ca, List<String> extra) {
        this.dir = dir;
        this.ca = ca;
        this.extra = extra;
    }

    /**
     * Starts {@code size} nodes under {@code dir}, each with {@code extra} server flags (e.g. a shorter
     * failure timeout); the joiners start concurrently once the first node is up.
     */
    public static LocalCluster start(Path dir, int size, List<String> extra) throws IOException, InterruptedException {
        return start(dir, size, NodeProcess.TEST_JVM, extra);
    }

    /**
     * {@link #start(Path, int, List)} with these JVM options for every node (e.g. {@link NodeProcess#SERVER_JVM}
     * for a benchmark, which should measure nodes as {@code ./felix server} runs them).
     */
    public static LocalCluster start(Path dir, int size, List<String> jvmOptions, List<String> extra)
            throws IOException, InterruptedException {
        ClusterTls.CaFiles ca = createCa(dir);
        LocalCluster c = new LocalCluster(dir, ca, List.copyOf(extra));
        try {
            NodeProcess first = NodeProcess.start("n1", dir.resolve("n1"), dir.resolve("logs"), ca.cert(), ca.key(),
                    null, jvmOptions, extra);
            c.nodes.put("n1", first);
            for (int i = 2; i <= size; i++) {
                String id = "n" + i;
                c.nodes.put(id, NodeProcess.start(id, dir.resolve(id), dir.resolve("logs"), ca.cert(), ca.key(),
                        first.raftAddress(), jvmOptions, extra));
            }
            return c;
        } catch (IOException | InterruptedException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /**
     * As {@link #start(Path, int, List)}, with a {@link TcpProxy} in front of each node's Raft endpoint: every node
     * advertises its proxy's port ({@code --raft-advertise}), so every Raft connection to a node from the others
     * passes through that node's proxy ({@link #raftProxy}); the node's own clients dial its bound port.
     */
    public static LocalCluster startBehindProxies(Path dir, int size, List<String> extra)
            throws IOException, InterruptedException {
        ClusterTls.CaFiles ca = createCa(dir);
        LocalCluster c = new LocalCluster(dir, ca, List.copyOf(extra));
        try {
            String join = null;
            for (int i = 1; i <= size; i++) {
                String id = "n" + i;
                int raftPort = freeTcpPort();
                TcpProxy proxy = TcpProxy.start(new InetSocketAddress("127.0.0.1", raftPort));
                c.proxies.put(id, proxy);
                String advertised = "127.0.0.1:" + proxy.port();
                c.nodes.put(id, NodeProcess.start(id, dir.resolve(id), dir.resolve("logs"), ca.cert(), ca.key(),
                        join, NodeProcess.TEST_JVM, extra, "127.0.0.1:" + raftPort, advertised));
                if (join == null) {
                    join = advertised;
                }
            }
            return c;
        } catch (IOException | InterruptedException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private static ClusterTls.CaFiles createCa(Path dir) throws IOException {
        try {
            return ClusterTls.createCa(dir.resolve("ca"));
        } catch (TlsException e) {
            throw new IOException("cannot create the cluster CA: " + e.getMessage(), e);
        }
    }

    /** A TCP port free on loopback now, for a node to bind a moment later (as a node picks one for port 0). */
    private static int freeTcpPort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** The proxy in front of node {@code id}'s Raft endpoint ({@link #startBehindProxies} only). */
    public TcpProxy raftProxy(String id) {
        TcpProxy p = proxies.get(id);
        if (p == null) {
            throw new IllegalArgumentException("node " + id + " has no Raft proxy (started without proxies?)");
        }
        return p;
    }

    /**
     * Cuts node {@code id} off from the other nodes' Raft traffic, both ways, until {@link #healRaft()}: their
     * connections to its proxy, and its connections to theirs, open now or opened later, carry nothing
     * ({@link TcpProxy#cutOff}). Its own clients still reach it, and clients and replication (QUIC) are not proxied.
     * Returns how many open connections were stalled.
     */
    public int partitionRaft(String id) {
        NodeProcess cut = node(id);
        int stalled = 0;
        for (NodeProcess other : nodes.values()) {
            if (other != cut) {
                stalled += raftProxy(id).cutOff(other.pid());
                stalled += raftProxy(other.id()).cutOff(cut.pid());
            }
        }
        return stalled;
    }

    /** Ends {@link #partitionRaft}: the stalled connections are closed, and new ones pass. */
    public void healRaft() {
        for (TcpProxy p : proxies.values()) {
            p.heal();
        }
    }

    public NodeProcess node(String id) {
        NodeProcess n = nodes.get(id);
        if (n == null) {
            throw new IllegalArgumentException("no node " + id);
        }
        return n;
    }

    public List<NodeProcess> nodes() {
        return List.copyOf(nodes.values());
    }

    /**
     * Restarts the given nodes from their data directories together (a cluster that lost its majority needs
     * its nodes back at the same time: each waits for a majority) and waits until each serves.
     */
    public void restart(List<String> ids) throws IOException, InterruptedException {
        for (String id : ids) {
            node(id).spawnAgain();
        }
        for (String id : ids) {
            node(id).awaitBanner();
        }
    }

    /** The cluster CA certificate clients trust. */
    public Path caCertificate() {
        return ca.cert();
    }

    /** A client of node {@code id} (as tenant {@code t1}), trusting the cluster CA. */
    public FelixClient connect(String id) {
        return FelixClient.connect(clientConfig(node(id).clientAddress(), Duration.ofSeconds(10)));
    }

    /**
     * The settings of a client of node {@code id} at its current address (tenant {@code t1}, the cluster CA
     * trusted, the timeouts of {@link #connect(String)}), for a caller to adjust before connecting.
     */
    public ClientConfig.Builder clientConfig(String id) {
        return clientBuilder(node(id).clientAddress(), Duration.ofSeconds(10));
    }

    /**
     * A client of the whole cluster (as tenant {@code t1}, trusting the cluster CA), starting from every node's
     * current address; it learns later addresses from the cluster.
     */
    public FelixCluster connectCluster(Duration requestTimeout) {
        List<InetSocketAddress> addresses = nodes.values().stream().filter(NodeProcess::alive)
                .map(NodeProcess::clientAddress).toList();
        return FelixCluster.connect(clientConfig(addresses.get(0), requestTimeout), addresses);
    }

    private ClientConfig clientConfig(InetSocketAddress broker, Duration requestTimeout) {
        return clientBuilder(broker, requestTimeout).build();
    }

    private ClientConfig.Builder clientBuilder(InetSocketAddress broker, Duration requestTimeout) {
        try {
            return ClientConfig.builder(ClientTrust.certificates(ca.cert())).broker(broker).tenant("t1")
                    .connectTimeout(Duration.ofSeconds(3)).requestTimeout(requestTimeout);
        } catch (TlsException e) {
            throw new IllegalStateException("cannot read the cluster CA " + ca.cert() + ": " + e.getMessage(), e);
        }
    }

    /** The cluster status as node {@code id} answers it. */
    public Message.ClusterStatusResult status(String id) {
        try (FelixClient c = connect(id)) {
            return c.cluster().status();
        }
    }

    /** Shard {@code shard} of stream {@code name} as node {@code id} sees it. */
    public ClusterShardStatus shard(String id, String name, int shard) {
        return unit(id, "stream", name, shard);
    }

    /** A replicated unit ({@code kind} {@code stream} or {@code cache}) as node {@code id} sees it. */
    private ClusterShardStatus unit(String id, String kind, String name, int shard) {
        for (ClusterShardStatus s : status(id).shards()) {
            if (s.kind().equals(kind) && s.name().equals(name) && s.shard() == shard) {
                return s;
            }
        }
        throw new IllegalStateException("node " + id + " knows no " + kind + " " + name + "/" + shard);
    }

    /**
     * Polls node {@code id}'s view of a shard until {@code condition} holds (answers that fail — a node still
     * electing — count as not yet), or fails after {@code timeout}.
     */
    public ClusterShardStatus awaitShard(String id, String name, int shard, Duration timeout,
            Predicate<ClusterShardStatus> condition, String what) throws InterruptedException {
        return awaitUnit(id, "stream", name, shard, timeout, condition, what);
    }

    /** As {@link #awaitShard}, for cache {@code name} (a cache is one unit, shard 0). */
    public ClusterShardStatus awaitCache(String id, String name, Duration timeout,
            Predicate<ClusterShardStatus> condition, String what) throws InterruptedException {
        return awaitUnit(id, "cache", name, 0, timeout, condition, what);
    }

    private ClusterShardStatus awaitUnit(String id, String kind, String name, int shard, Duration timeout,
            Predicate<ClusterShardStatus> condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            try {
                ClusterShardStatus s = unit(id, kind, name, shard);
                if (condition.test(s)) {
                    return s;
                }
                last = s.toString();
            } catch (FelixClientException | IllegalStateException e) {
                last = e.getMessage();
            }
            Thread.sleep(100); // polling another process's state
        }
        throw new IllegalStateException("within " + timeout.toSeconds() + " s, " + what + " did not happen (node " + id
                + " last said: " + last + ")");
    }

    /** Nodes other than {@code leader} among {@code replicas}. */
    public static List<String> followersOf(ClusterShardStatus s) {
        List<String> out = new ArrayList<>(s.replicas());
        out.remove(s.leader());
        return out;
    }

    @Override
    public void close() {
        for (NodeProcess n : nodes.values()) {
            n.close();
        }
        for (TcpProxy p : proxies.values()) {
            p.close();
        }
    }

    public Path directory() {
        return dir;
    }
}
