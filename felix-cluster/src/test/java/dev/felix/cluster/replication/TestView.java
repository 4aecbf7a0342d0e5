package dev.felix.cluster.replication;

import dev.felix.cluster.ClusterControl;
import dev.felix.cluster.ClusterListener;
import dev.felix.cluster.ClusterView;
import dev.felix.cluster.NodeInfo;
import dev.felix.cluster.NodeStatus;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.cluster.ShardStatus;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Cluster metadata as replication sees it, held in memory and shared by every node of a one-JVM test: the
 * test plays the metadata leader (it marks nodes down, sets placements, decides failovers), so replication
 * is tested apart from Raft. Each node gets its own {@link #as(String) view} naming it the local node.
 * Listeners are called synchronously on the changing thread.
 */
final class TestView implements ClusterControl {

    private final Map<String, NodeInfo> nodes = new TreeMap<>();
    private final Map<ShardKey, ShardPlacement> placements = new TreeMap<>(
            java.util.Comparator.comparing(ShardKey::uid).thenComparing(ShardKey::shard));
    private final List<ClusterListener> listeners = new CopyOnWriteArrayList<>();
    private long version;

    synchronized void node(String id, String peerAddress) {
        nodes.put(id, new NodeInfo(id, "127.0.0.1:1", peerAddress, "127.0.0.1:2", NodeStatus.UP, 1));
        changed();
    }

    void status(String id, NodeStatus status) {
        synchronized (this) {
            NodeInfo n = nodes.get(id);
            nodes.put(id, new NodeInfo(n.nodeId(), n.clientAddress(), n.peerAddress(), n.raftAddress(), status,
                    n.incarnation()));
        }
        changed();
    }

    void place(ShardPlacement p) {
        synchronized (this) {
            placements.put(p.key(), p);
        }
        changed();
    }

    synchronized ShardPlacement placement(ShardKey key) {
        return placements.get(key);
    }

    void setLeader(ShardKey key, String leader) {
        ShardPlacement p = placement(key);
        place(new ShardPlacement(key, p.name(), p.durable(), p.consistency(), p.replicas(), leader, p.epoch() + 1,
                ShardStatus.ONLINE, null));
    }

    void unavailable(ShardKey key, String reason) {
        ShardPlacement p = placement(key);
        place(new ShardPlacement(key, p.name(), p.durable(), p.consistency(), p.replicas(), p.leader(), p.epoch(),
                ShardStatus.UNAVAILABLE, reason));
    }

    private void changed() {
        long v;
        synchronized (this) {
            v = ++version;
        }
        for (ClusterListener l : listeners) {
            l.changed(null, v);
        }
    }

    @Override
    public CompletableFuture<ShardPlacement> handOff(ShardKey key, long expectedEpoch, String toNode) {
        ShardPlacement p = placement(key);
        if (p.epoch() != expectedEpoch || !p.replicas().contains(toNode)) {
            return CompletableFuture.failedFuture(new FelixException(ErrorCode.BAD_REQUEST, "precondition"));
        }
        setLeader(key, toNode);
        return CompletableFuture.completedFuture(placement(key));
    }

    @Override
    public CompletableFuture<ShardPlacement> resumeLeadership(ShardKey key, long expectedEpoch) {
        ShardPlacement p = placement(key);
        if (p.epoch() != expectedEpoch || p.status() != ShardStatus.UNAVAILABLE) {
            return CompletableFuture.failedFuture(new FelixException(ErrorCode.BAD_REQUEST, "precondition"));
        }
        setLeader(key, p.leader());
        return CompletableFuture.completedFuture(placement(key));
    }

    /** The view as node {@code local} sees it. */
    ClusterView as(String local) {
        return new ClusterView() {
            @Override
            public String localNodeId() {
                return local;
            }

            @Override
            public List<NodeInfo> nodes() {
                synchronized (TestView.this) {
                    return new ArrayList<>(nodes.values());
                }
            }

            @Override
            public Optional<NodeInfo> node(String nodeId) {
                synchronized (TestView.this) {
                    return Optional.ofNullable(nodes.get(nodeId));
                }
            }

            @Override
            public Optional<ShardPlacement> placement(ShardKey key) {
                return Optional.ofNullable(TestView.this.placement(key));
            }

            @Override
            public List<ShardPlacement> placements() {
                synchronized (TestView.this) {
                    return new ArrayList<>(placements.values());
                }
            }

            @Override
            public long version() {
                synchronized (TestView.this) {
                    return version;
                }
            }

            @Override
            public void addListener(ClusterListener listener) {
                listeners.add(listener);
            }
        };
    }
}
