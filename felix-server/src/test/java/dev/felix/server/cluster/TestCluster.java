package dev.felix.server.cluster;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.transport.ClientTrust;
import java.util.ArrayList;
import java.util.List;
import static org.awaitility.Awaitility.await;

import dev.felix.cluster.NodeInfo;
import dev.felix.cluster.tls.ClusterTls;
import dev.felix.server.FelixServer;
import dev.felix.server.config.ConfigLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Three {@code felix server} nodes in this JVM forming one cluster over real QUIC, Raft and mutual TLS, under
 * a test's temporary directory: n1 bootstraps, n2 and n3 join through it, each on ports the OS picks.
 * {@link #close()} stops every node still running. Shared by the server's and the CLI's cluster tests.
 */
public final class TestCluster implements AutoCloseable {

    private final Path dir;
    private final ClusterTls.CaFiles ca;
    private final Map<String, FelixServer> nodes = new LinkedHashMap<>();
    private final Map<String, String> extra;
    private final List<FelixClient> clients = new ArrayList<>();

    private TestCluster(Path dir, ClusterTls.CaFiles ca, Map<String, String> extra) {
        this.dir = dir;
        this.ca = ca;
        this.extra = extra;
    }

    /** Starts three nodes with a new CA under {@code dir}/ca and waits until all three are up. */
    public static TestCluster startThree(Path dir) throws Exception {
        return startThree(dir, ClusterTls.createCa(dir.resolve("ca")));
    }

    /** Starts three nodes whose certificates {@code ca} issues, and waits until all three are up. */
    public static TestCluster startThree(Path dir, ClusterTls.CaFiles ca) throws Exception {
        return startThree(dir, ca, Map.of());
    }

    /** Starts three nodes as above, each also given the settings in {@code extra} (e.g. a feature flag). */
    public static TestCluster startThree(Path dir, Map<String, String> extra) throws Exception {
        return startThree(dir, ClusterTls.createCa(dir.resolve("ca")), extra);
    }

    private static TestCluster startThree(Path dir, ClusterTls.CaFiles ca, Map<String, String> extra)
            throws Exception {
        TestCluster c = new TestCluster(dir, ca, Map.copyOf(extra));
        try {
            FelixServer n1 = c.start("n1", null);
            String raft = n1.cluster().node("n1").map(NodeInfo::raftAddress).orElseThrow();
            c.start("n2", raft);
            c.start("n3", raft);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> n1.cluster().nodes().stream().filter(NodeInfo::up).count() == 3);
            return c;
        } catch (Exception | Error e) {
            c.close();
            throw e;
        }
    }

    /**
     * Starts node {@code id} again from its data directory (stopped with {@link #stop}): it rejoins with the id,
     * Raft port and membership it remembers, neither bootstrapping nor joining. Returns once it is a member
     * again and has caught up with the metadata log (what {@code FelixServer.start} waits for).
     */
    public FelixServer restart(String id) throws Exception {
        if (nodes.containsKey(id)) {
            throw new IllegalStateException("node " + id + " is running; stop it first");
        }
        return start(id, null, false);
    }

    private FelixServer start(String id, String join) throws Exception {
        return start(id, join, join == null);
    }

    private FelixServer start(String id, String join, boolean bootstrap) throws Exception {
        Map<String, String> flags = new HashMap<>(extra);
        flags.put("data_dir", dir.resolve(id).toString());
        flags.put("quic_bind", "127.0.0.1:0");
        flags.put("http_bind", "127.0.0.1:0");
        flags.put("node_id", id);
        flags.put("raft_bind", "127.0.0.1:0");
        flags.put("cluster_ca_cert", ca.cert().toString());
        flags.put("cluster_ca_key", ca.key().toString());
        if (bootstrap) {
            flags.put("cluster_bootstrap", "true");
        } else if (join != null) {
            flags.put("cluster_join", join);
        }
        FelixServer server = FelixServer.start(ConfigLoader.load(null, Map.of(), flags));
        nodes.put(id, server);
        return server;
    }

    /** The CA every node's certificate comes from (what clients trust). */
    public ClusterTls.CaFiles ca() {
        return ca;
    }

    /** The running nodes by id, in start order (a node stopped with {@link #stop} is gone from it). */
    public Map<String, FelixServer> nodes() {
        return nodes;
    }

    public FelixServer node(String id) {
        return nodes.get(id);
    }

    /** {@code 127.0.0.1:PORT} of node {@code id}'s client endpoint. */
    public String address(String id) {
        return "127.0.0.1:" + nodes.get(id).quicAddress().getPort();
    }

    /** Stops node {@code id} cleanly (its leaderships are handed off). */
    public void stop(String id) {
        FelixServer n = nodes.remove(id);
        if (n != null) {
            n.close();
        }
    }

    /**
     * A client of node {@code node} that trusts the cluster CA only (every node shows clients a certificate the CA
     * issued), closed by {@link #close()} before the nodes.
     */
    public FelixClient connect(FelixServer node) throws Exception {
        return track(FelixClient.connect(ClientConfig.builder(ClientTrust.certificates(ca.cert()))
                .broker(node.quicAddress()).tenant("t1").build()));
    }

    /** Closes {@code client} with the cluster (for a client a test configured itself). */
    public FelixClient track(FelixClient client) {
        synchronized (clients) {
            clients.add(client);
        }
        return client;
    }

    @Override
    public void close() {
        synchronized (clients) {
            clients.forEach(FelixClient::close);
            clients.clear();
        }
        nodes.values().forEach(FelixServer::close);
        nodes.clear();
    }
}
