package dev.felix.core.routing;

import java.util.Objects;

/**
 * A node of the cluster as a client reaches it.
 *
 * @param nodeId  the node's persisted id
 * @param address {@code host:port} of its client (QUIC) endpoint
 */
public record NodeRef(String nodeId, String address) {
    public NodeRef {
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(address, "address");
    }
}
