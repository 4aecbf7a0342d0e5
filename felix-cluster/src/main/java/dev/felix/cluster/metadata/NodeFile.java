package dev.felix.cluster.metadata;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.UUID;

/**
 * {@code <data>/cluster/node.json}: who this data dir is in the cluster. Written once, on the first start, and
 * checked at every later one:
 * <pre>
 * {"format":1, "node_id":"node-1", "instance_id":"…uuid…", "cluster_name":"felix", "raft_address":"127.0.0.1:7001"}
 * </pre>
 * {@code instance_id} is generated once per data dir: the cluster refuses a second data dir that claims the
 * same node id. {@code raft_address} is where the Raft endpoint listens; a {@code raft_bind} with port 0 picks a
 * free port on the first start and reuses it afterwards. {@code raft_advertise}, present only when
 * {@code raft_advertise} was set, is where other members dial it instead (a forwarded port); otherwise they dial
 * {@code raft_address}. A start whose settings disagree (another node id, cluster name, Raft address or advertised
 * address) fails naming the setting: the members know this node by the address in their Raft configuration.
 *
 * <p>Written atomically (temporary file, fsync, rename, fsync of the directory). Not thread-safe: used once,
 * by the start.
 *
 * @param nodeId      {@code node_id}
 * @param instanceId  this data dir's identity
 * @param clusterName {@code cluster_name}
 * @param raftAddress   the Raft endpoint, with the port chosen
 * @param raftAdvertise where other members dial the Raft endpoint, or null for {@code raftAddress}
 */
record NodeFile(String nodeId, String instanceId, String clusterName, HostPort raftAddress, HostPort raftAdvertise) {

    static final String FILE = "node.json";
    private static final int FORMAT = 1;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** Reads {@code node.json} in {@code clusterDir}, or creates it for a first start. */
    static NodeFile loadOrCreate(Path clusterDir, ClusterSettings settings) throws FelixException {
        Path file = clusterDir.resolve(FILE);
        if (Files.exists(file)) {
            NodeFile stored = read(file);
            stored.check(settings, file);
            return stored;
        }
        HostPort bind = settings.raftBind();
        int port = bind.port() != 0 ? bind.port() : freePort(bind);
        NodeFile created = new NodeFile(settings.nodeId(), UUID.randomUUID().toString(), settings.clusterName(),
                new HostPort(bind.host(), port), settings.raftAdvertise());
        created.write(clusterDir);
        return created;
    }

    private void check(ClusterSettings s, Path file) throws FelixException {
        if (!nodeId.equals(s.nodeId())) {
            throw bad(ClusterSettings.NODE_ID + " '" + s.nodeId() + "' differs from '" + nodeId + "', the id this"
                    + " data directory was created with (" + file + "): start it with " + ClusterSettings.NODE_ID
                    + " " + nodeId + ", or give the new node its own " + ClusterSettings.DATA_DIR);
        }
        if (!clusterName.equals(s.clusterName())) {
            throw bad(ClusterSettings.CLUSTER_NAME + " '" + s.clusterName() + "' differs from '" + clusterName
                    + "', the cluster this data directory belongs to (" + file + "): start it with "
                    + ClusterSettings.CLUSTER_NAME + " " + clusterName + ", or use another "
                    + ClusterSettings.DATA_DIR);
        }
        HostPort bind = s.raftBind();
        if (!bind.host().equals(raftAddress.host()) || (bind.port() != 0 && bind.port() != raftAddress.port())) {
            throw bad(ClusterSettings.RAFT_BIND + " " + bind + " differs from " + raftAddress + ", the Raft address"
                    + " the other members know this node by (" + file + "): start it with "
                    + ClusterSettings.RAFT_BIND + " " + raftAddress + " (or port 0, which reuses "
                    + raftAddress.port() + ")");
        }
        // The members know this node by its advertised address: any setting that keeps it will do (an unset one,
        // or the bound address given explicitly, are the same).
        HostPort wanted = s.raftAdvertise() != null ? s.raftAdvertise() : raftAddress;
        if (!wanted.equals(advertised())) {
            throw bad(ClusterSettings.RAFT_ADVERTISE + " " + orUnset(s.raftAdvertise()) + " differs from "
                    + orUnset(raftAdvertise) + ", the address the"
                    + " other members dial this node's Raft endpoint at (" + file + "): start it "
                    + (raftAdvertise == null ? "without " + ClusterSettings.RAFT_ADVERTISE
                            : "with " + ClusterSettings.RAFT_ADVERTISE + " " + raftAdvertise));
        }
    }

    private static String orUnset(HostPort address) {
        return address == null ? "(unset)" : address.toString();
    }

    /** Where other members dial this node's Raft endpoint: what they know it by. */
    HostPort advertised() {
        return raftAdvertise != null ? raftAdvertise : raftAddress;
    }

    /**
     * Where this node's own Raft clients dial its Raft endpoint: the bound address (loopback for a wildcard bind, on
     * the bound port), not the advertised one. Behind NAT a node often cannot reach its own forwarded port (the
     * router does not hairpin), and a node that leads the metadata group then failed every metadata write it was
     * asked for. The same as {@link #advertised()} without {@code raft_advertise}.
     */
    HostPort dialledBySelf() {
        if (raftAdvertise == null || !raftAddress.wildcard()) {
            return raftAddress;
        }
        return new HostPort(raftAddress.host().equals("0.0.0.0") ? "127.0.0.1" : "::1", raftAddress.port());
    }

    private static NodeFile read(Path file) throws FelixException {
        try {
            JsonNode n = MAPPER.readTree(Files.readAllBytes(file));
            if (n == null || !n.isObject() || n.path("format").asInt(-1) != FORMAT) {
                throw bad(file + " is not a node file of format " + FORMAT);
            }
            String node = n.path("node_id").asText(null);
            String instance = n.path("instance_id").asText(null);
            String cluster = n.path("cluster_name").asText(null);
            String raft = n.path("raft_address").asText(null);
            String advertise = n.path("raft_advertise").asText(null);
            if (node == null || instance == null || cluster == null || raft == null) {
                throw bad(file + " lacks node_id, instance_id, cluster_name or raft_address");
            }
            return new NodeFile(node, instance, cluster, HostPort.parse("raft_address in " + file, raft),
                    advertise == null ? null : HostPort.parse("raft_advertise in " + file, advertise));
        } catch (IOException | IllegalArgumentException e) {
            throw bad("cannot read " + file + ": " + e.getMessage());
        }
    }

    private void write(Path clusterDir) throws FelixException {
        Path file = clusterDir.resolve(FILE);
        try {
            Files.createDirectories(clusterDir);
            ObjectNode n = MAPPER.createObjectNode();
            n.put("format", FORMAT);
            n.put("node_id", nodeId);
            n.put("instance_id", instanceId);
            n.put("cluster_name", clusterName);
            n.put("raft_address", raftAddress.toString());
            if (raftAdvertise != null) {
                n.put("raft_advertise", raftAdvertise.toString());
            }
            byte[] bytes = MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(n);
            Path tmp = clusterDir.resolve(FILE + ".tmp");
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(ByteBuffer.wrap(bytes));
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel dir = FileChannel.open(clusterDir, StandardOpenOption.READ)) {
                dir.force(true);
            }
        } catch (IOException e) {
            throw new FelixException(ErrorCode.UNAVAILABLE, "cannot write " + file + ": " + e.getMessage()
                    + " (is " + ClusterSettings.DATA_DIR + " writable?)");
        }
    }

    /** A port free on {@code bind}'s host now (the Raft server binds it a moment later). */
    private static int freePort(HostPort bind) throws FelixException {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getByName(bind.host()), 0));
            return s.getLocalPort();
        } catch (IOException e) {
            throw bad(ClusterSettings.RAFT_BIND + " " + bind + ": cannot bind a port on " + bind.host() + ": "
                    + e.getMessage());
        }
    }

    private static FelixException bad(String message) {
        return new FelixException(ErrorCode.BAD_REQUEST, message);
    }
}
