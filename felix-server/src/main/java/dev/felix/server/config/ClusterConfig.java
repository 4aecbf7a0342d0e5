package dev.felix.server.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How this node joins a cluster; absent from {@link BrokerConfig#cluster()} for a single node. Built and
 * checked by {@link ConfigLoader} from the {@code cluster_*}, {@code node_id}, {@code raft_bind} and
 * {@code peer_bind} settings (see {@link Settings}).
 *
 * @param nodeId           persisted id of this node, unique in the cluster
 * @param raftBind         Raft (metadata) endpoint; port 0 = pick a free port once and keep it
 * @param peerBind         replication endpoint (QUIC, mutual TLS); port 0 = any free port
 * @param advertiseHost    host other nodes and clients reach this node at (default: the QUIC bind host)
 * @param bootstrap        form a new cluster with this node as its first member
 * @param join             {@code host:port} of any member's Raft endpoint to join (null with bootstrap or on
 *                         a restart of a member)
 * @param name             cluster name (the Raft group is derived from it)
 * @param ca               the cluster CA certificate (PEM): peers must present a certificate it issued
 * @param caKey            the CA's private key (PEM): this node issues its own certificate with it; or null
 * @param cert             this node's certificate (PEM) issued by the CA; or null with {@code caKey}
 * @param key              the private key of {@code cert}
 * @param heartbeat        how often this node tells the metadata leader it is alive
 * @param failureTimeout   a node silent this long is declared down
 */
public record ClusterConfig(String nodeId, HostPort raftBind, HostPort peerBind, String advertiseHost, boolean bootstrap,
                            HostPort join, String name, Path ca, Path caKey, Path cert, Path key, Duration heartbeat,
                            Duration failureTimeout) {
    public ClusterConfig {
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(raftBind, "raftBind");
        Objects.requireNonNull(peerBind, "peerBind");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(ca, "ca");
        Objects.requireNonNull(heartbeat, "heartbeat");
        Objects.requireNonNull(failureTimeout, "failureTimeout");
    }
}
