package dev.felix.cluster.metadata;

import dev.felix.cluster.NodeStatus;
import dev.felix.cluster.ShardKey;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.cache.CacheConfig;
import dev.felix.core.cache.CacheName;
import java.util.List;
import java.util.Objects;

/**
 * A change of cluster metadata: one Raft log entry (JSON, {@link Json#encode(Command)}), applied by
 * {@link ClusterState#apply} on every node in log order. Commands are requests, not facts: {@code apply}
 * checks each against the state it meets and may refuse it (a stale epoch, an unknown node); a refused command
 * changes nothing, on every node alike.
 *
 * <p>Immutable values; any thread.
 */
sealed interface Command {

    /** The bootstrap node's first entry: names the cluster and seeds its uids (ignored once set). */
    record InitCluster(String clusterName, long seed) implements Command {
        public InitCluster {
            Objects.requireNonNull(clusterName, "clusterName");
        }
    }

    /**
     * A node joins, or registers again after a start (status {@code UP}, a new incarnation). Refused when a
     * node with this id exists with another {@code instanceId} (another data dir claims the id).
     */
    record RegisterNode(String nodeId, String instanceId, String raftAddress, String clientAddress,
                        String peerAddress, long incarnation) implements Command {
        public RegisterNode {
            Objects.requireNonNull(nodeId, "nodeId");
            Objects.requireNonNull(instanceId, "instanceId");
        }
    }

    /**
     * Liveness transition decided by the Raft leader; applies only while the node is still at
     * {@code expectedIncarnation} (a restart in between registered it anew).
     */
    record SetNodeStatus(String nodeId, NodeStatus status, long expectedIncarnation) implements Command {
        public SetNodeStatus {
            Objects.requireNonNull(nodeId, "nodeId");
            Objects.requireNonNull(status, "status");
        }
    }

    record CreateTenant(String tenant) implements Command {
        public CreateTenant {
            Objects.requireNonNull(tenant, "tenant");
        }
    }

    record CreateStream(StreamName name, StreamConfig config) implements Command {
        public CreateStream {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(config, "config");
        }
    }

    record DeleteStream(StreamName name) implements Command {
        public DeleteStream {
            Objects.requireNonNull(name, "name");
        }
    }

    record CreateCache(CacheName name, CacheConfig config) implements Command {
        public CreateCache {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(config, "config");
        }
    }

    record DeleteCache(CacheName name) implements Command {
        public DeleteCache {
            Objects.requireNonNull(name, "name");
        }
    }

    /**
     * {@code newLeader} leads {@code key} at epoch {@code expectedEpoch + 1}, online (failover). {@code replicas}
     * replaces the replica set of a unit without a log (it moves whole to one node); null keeps it.
     */
    record SetLeader(ShardKey key, String newLeader, long expectedEpoch, List<String> replicas) implements Command {
        public SetLeader {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(newLeader, "newLeader");
            replicas = replicas == null ? null : List.copyOf(replicas);
        }
    }

    /** {@code key} cannot be served, for {@code reason}; leader and epoch stay. */
    record SetUnavailable(ShardKey key, long expectedEpoch, String reason) implements Command {
        public SetUnavailable {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** The recorded leader {@code fromNode} hands {@code key} to the replica {@code toNode} (epoch + 1). */
    record HandOff(ShardKey key, long expectedEpoch, String fromNode, String toNode) implements Command {
        public HandOff {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(fromNode, "fromNode");
            Objects.requireNonNull(toNode, "toNode");
        }
    }

    /** The recorded leader {@code node}, back, takes {@code key} again at a new epoch, online. */
    record ResumeLeadership(ShardKey key, long expectedEpoch, String node) implements Command {
        public ResumeLeadership {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(node, "node");
        }
    }

    /**
     * Changes nothing. A node commits one before it answers that a name does not exist ({@link CatchUp}): once it
     * is committed, every change committed before it is at a lower index, and a leader deposed without knowing it
     * cannot commit it, where it could still answer a read with its own, older commit index.
     */
    record Barrier() implements Command {
    }

    /**
     * A failover decision ({@code decision}: a node's status, a unit's new leader or its unavailability) made by the
     * Raft leader of {@code term}, from what that leader had heard. {@link ClusterState#apply(Command, long, long)}
     * applies it only from a log entry of that same term: an entry of a later term means the decision reached a newer
     * leader, so the node that made it had been deposed, and what it decided from may be stale. A leader frozen until
     * it is replaced decides on resuming, before it hears of its successor, that every node it did not hear from while
     * frozen is down; until 2026-12-06 its Raft client handed such decisions to the new leader. The decider now submits
     * to its own Raft server only, which cannot commit in a term that is over: this check keeps the rule whatever the
     * route to the log.
     *
     * <p>In JSON the decision's own object with one more field, {@code decided_in_term}.
     */
    record Decided(long term, Command decision) implements Command {
        public Decided {
            Objects.requireNonNull(decision, "decision");
            if (term < 0) {
                throw new IllegalArgumentException("a Raft term is not negative: " + term);
            }
            if (!(decision instanceof SetNodeStatus || decision instanceof SetLeader
                    || decision instanceof SetUnavailable)) {
                throw new IllegalArgumentException("not a failover decision: " + decision.getClass().getSimpleName());
            }
        }
    }
}
