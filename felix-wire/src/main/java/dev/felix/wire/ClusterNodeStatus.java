package dev.felix.wire;

import java.util.Objects;

/**
 * A member in {@code cluster_status_result.nodes} (extension {@link Capabilities#CLUSTER}). Keys in order:
 * {@code node, addr, status}.
 *
 * @param node   node id
 * @param addr   {@code host:port} of its client endpoint
 * @param status {@code up} or {@code down}, as the cluster last decided
 */
public record ClusterNodeStatus(String node, String addr, String status) {
    public ClusterNodeStatus {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(status, "status");
    }
}
