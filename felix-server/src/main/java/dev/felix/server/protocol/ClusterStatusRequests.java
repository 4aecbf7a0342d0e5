package dev.felix.server.protocol;

import dev.felix.cluster.NodeInfo;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.cluster.ShardStatus;
import dev.felix.cluster.replication.LeaderProgress;
import dev.felix.wire.ClusterNodeStatus;
import dev.felix.wire.ClusterShardStatus;
import dev.felix.wire.Message;
import dev.felix.wire.ReplicaLag;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code cluster_status}: members and their liveness, every replicated unit with its leader, epoch, replicas
 * and status, and the progress of the units this node leads. Stateless.
 */
final class ClusterStatusRequests {
    private ClusterStatusRequests() {
    }

    static Message.ClusterStatusResult answer(ServerContext context, Long requestId) {
        List<ClusterNodeStatus> nodes = new ArrayList<>();
        for (NodeInfo n : context.cluster.nodes()) {
            nodes.add(new ClusterNodeStatus(n.nodeId(), n.clientAddress(), n.up() ? "up" : "down"));
        }
        List<ClusterShardStatus> shards = new ArrayList<>();
        List<ShardPlacement> placements = new ArrayList<>(context.cluster.placements());
        placements.sort(Comparator.comparing(ShardPlacement::name).thenComparing(p -> p.key().shard()));
        for (ShardPlacement p : placements) {
            Optional<LeaderProgress> progress = context.replication == null ? Optional.empty()
                    : context.replication.progress(p.key());
            List<ReplicaLag> lag = null;
            if (progress.isPresent()) {
                lag = new ArrayList<>();
                for (Map.Entry<String, Long> f : progress.get().followerEnds().entrySet()) {
                    lag.add(new ReplicaLag(f.getKey(), Math.max(0, progress.get().logEnd() - f.getValue())));
                }
            }
            shards.add(new ClusterShardStatus(p.key().kind() == ShardKey.Kind.STREAM ? "stream" : "cache", p.name(),
                    p.key().shard(), p.consistency().wireName(), p.leader(), p.epoch(), p.replicas(),
                    p.status() == ShardStatus.ONLINE ? "online" : String.valueOf(p.reason()),
                    progress.map(LeaderProgress::highWatermark).orElse(null),
                    progress.map(LeaderProgress::logEnd).orElse(null), lag));
        }
        return new Message.ClusterStatusResult(context.cluster.localNodeId(), nodes, shards, requestId);
    }
}
