package dev.felix.cluster;

import dev.felix.core.Consistency;
import java.util.List;
import java.util.Objects;

/**
 * Where a replicated unit lives and who leads it, as committed in cluster metadata.
 *
 * @param key         the unit
 * @param name        its resource's name, {@code tenant/namespace/stream} or {@code tenant/namespace/cache}
 * @param durable     whether it keeps a log (ephemeral stream shards and memory caches live on one node and
 *                    move, as a new incarnation, when that node is lost)
 * @param consistency when a batch is acknowledged (durable units)
 * @param replicas    node ids holding a copy, the leader's included; fixed at creation
 * @param leader      node id of the leader; kept while {@link ShardStatus#UNAVAILABLE} so the old leader
 *                    takes it back when it returns with its disk
 * @param epoch       leader epoch: bumped by every change of leader (and by a leader's return); every
 *                    replication request carries it and a stale one is refused both ways
 * @param status      servable or not
 * @param reason      why not ({@link ShardStatus#UNAVAILABLE}), in the words clients get; null when online
 */
public record ShardPlacement(ShardKey key, String name, boolean durable, Consistency consistency,
                             List<String> replicas, String leader, long epoch, ShardStatus status, String reason) {
    public ShardPlacement {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(consistency, "consistency");
        replicas = List.copyOf(replicas);
        Objects.requireNonNull(status, "status");
    }

    /** Replicas other than the leader. */
    public List<String> followers() {
        return replicas.stream().filter(r -> !r.equals(leader)).toList();
    }

    /** Copies a majority of {@link #replicas()} is (the leader counts). */
    public int majority() {
        return replicas.size() / 2 + 1;
    }
}
