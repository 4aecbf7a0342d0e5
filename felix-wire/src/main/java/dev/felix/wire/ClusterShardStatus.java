package dev.felix.wire;

import java.util.List;
import java.util.Objects;

/**
 * A replicated unit in {@code cluster_status_result.shards} (extension {@link Capabilities#CLUSTER}). Keys in
 * order: {@code kind, name, shard, consistency, leader?, epoch, replicas, status, hwm?, log_end?, lag?}; the
 * last three only from the node that leads the unit (a client asks each node for its own shards' progress).
 *
 * @param kind        {@code stream} or {@code cache}
 * @param name        {@code tenant/namespace/stream} or {@code tenant/namespace/cache}
 * @param shard       u32 shard index (0 for a cache)
 * @param consistency {@code leader} or {@code quorum}
 * @param leader      node id of the leader, or null
 * @param epoch       u64 leader epoch
 * @param replicas    node ids holding a copy
 * @param status      {@code online}, or why nobody may serve it (the words clients get)
 * @param hwm         u64 the leader's committed end (readers see offsets below it), or null
 * @param logEnd      u64 the leader's log end, or null
 * @param lag         per follower, records behind the leader, or null
 */
public record ClusterShardStatus(String kind, String name, int shard, String consistency, String leader, long epoch,
                                 List<String> replicas, String status, Long hwm, Long logEnd, List<ReplicaLag> lag) {
    public ClusterShardStatus {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(consistency, "consistency");
        replicas = List.copyOf(Objects.requireNonNull(replicas, "replicas"));
        Objects.requireNonNull(status, "status");
        lag = lag == null ? null : List.copyOf(lag);
    }
}
