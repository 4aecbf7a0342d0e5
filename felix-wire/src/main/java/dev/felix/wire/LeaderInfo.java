package dev.felix.wire;

import java.util.Objects;

/**
 * Who leads a shard or cache, as a {@code not_leader} error names it (extension {@link Capabilities#CLUSTER}):
 * the object {@code leader{node, addr, epoch}} of {@code error} and {@code publish_error}.
 *
 * @param node  the leader's node id
 * @param addr  {@code host:port} of its client endpoint
 * @param epoch the leader epoch
 */
public record LeaderInfo(String node, String addr, long epoch) {
    public LeaderInfo {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(addr, "addr");
    }
}
