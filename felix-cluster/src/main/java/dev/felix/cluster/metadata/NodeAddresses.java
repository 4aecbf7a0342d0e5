package dev.felix.cluster.metadata;

import java.util.Objects;

/**
 * Immutable. Where other nodes and clients reach this node, as it registers itself in cluster metadata
 * ({@link dev.felix.cluster.NodeInfo#clientAddress()}, {@link dev.felix.cluster.NodeInfo#peerAddress()}).
 *
 * @param client {@code host:port} of its client QUIC endpoint (what {@code not_leader} redirects name)
 * @param peer   {@code host:port} of its replication endpoint (followers fetch there)
 */
public record NodeAddresses(HostPort client, HostPort peer) {
    public NodeAddresses {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(peer, "peer");
        if (client.port() == 0 || client.wildcard()) {
            throw new IllegalArgumentException("the client address must be one other nodes can dial (a concrete"
                    + " host and the bound port), was " + client);
        }
        if (peer.port() == 0 || peer.wildcard()) {
            throw new IllegalArgumentException("the peer address must be one other nodes can dial (a concrete"
                    + " host and the bound port), was " + peer);
        }
    }

    /** Parses both addresses from {@code host:port} text. */
    public static NodeAddresses of(String client, String peer) {
        return new NodeAddresses(HostPort.parse("client address", client), HostPort.parse("peer address", peer));
    }
}
