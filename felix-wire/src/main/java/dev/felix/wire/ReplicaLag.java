package dev.felix.wire;

import java.util.Objects;

/**
 * How far one follower is behind its leader, in {@code cluster_status_result.shards[].lag} (extension
 * {@link Capabilities#CLUSTER}). Keys in order: {@code node, records}.
 *
 * @param node    the follower's node id
 * @param records u64 records the leader holds that the follower does not (yet)
 */
public record ReplicaLag(String node, long records) {
    public ReplicaLag {
        Objects.requireNonNull(node, "node");
    }
}
