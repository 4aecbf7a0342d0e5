package dev.felix.cluster;

import java.util.Objects;

/**
 * A member of the cluster.
 *
 * @param nodeId        persisted id, unique in the cluster
 * @param clientAddress {@code host:port} of its client QUIC endpoint (what {@code not_leader} names)
 * @param peerAddress   {@code host:port} of its replication endpoint (followers fetch there)
 * @param raftAddress   {@code host:port} of its Raft endpoint
 * @param status        liveness as last committed
 * @param incarnation   changes every time the node process starts: tells a restart from a long pause
 */
public record NodeInfo(String nodeId, String clientAddress, String peerAddress, String raftAddress,
                       NodeStatus status, long incarnation) {
    public NodeInfo {
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(status, "status");
    }

    public boolean up() {
        return status == NodeStatus.UP;
    }
}
