package dev.felix.cluster.routing;

import dev.felix.cluster.ClusterView;
import dev.felix.cluster.NodeInfo;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.cluster.ShardStatus;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.StreamName;
import dev.felix.core.cache.CacheName;
import dev.felix.core.metadata.CacheRecord;
import dev.felix.core.metadata.Metadata;
import dev.felix.core.metadata.StreamRecord;
import dev.felix.core.routing.Leadership;
import dev.felix.core.routing.NodeRef;
import dev.felix.core.routing.Router;
import java.util.Optional;

/**
 * Answers "who leads this shard?" from cluster metadata: the stream's uid names its placement; the placement
 * names the leader and epoch, or why nobody may serve it. A leader that is marked down is unavailable until
 * metadata settles its successor (or its return), so no client is sent to a node that cannot answer.
 *
 * <p><b>Threads.</b> Thread-safe and non-blocking: reads the local metadata replica only.
 */
public final class ClusterRouter implements Router {

    private final ClusterView view;
    private final Metadata metadata;

    public ClusterRouter(ClusterView view, Metadata metadata) {
        this.view = view;
        this.metadata = metadata;
    }

    @Override
    public Leadership shard(StreamName stream, int shard) {
        Optional<StreamRecord> record;
        try {
            record = metadata.stream(stream);
        } catch (FelixException e) {
            return new Leadership.Unavailable(e.error());
        }
        if (record.isEmpty()) {
            return Leadership.HERE; // unknown here: the request fails with not_found where it is served
        }
        return route(ShardKey.stream(record.get().uid(), shard), stream + "/" + shard);
    }

    @Override
    public Leadership cache(CacheName cache) {
        Optional<CacheRecord> record;
        try {
            record = metadata.cache(cache);
        } catch (FelixException e) {
            return new Leadership.Unavailable(e.error());
        }
        if (record.isEmpty()) {
            return Leadership.HERE;
        }
        return route(ShardKey.cache(record.get().uid()), cache.toString());
    }

    private Leadership route(ShardKey key, String what) {
        Optional<ShardPlacement> placement = view.placement(key);
        if (placement.isEmpty()) {
            return new Leadership.Unavailable(FelixError.of(ErrorCode.UNAVAILABLE, what
                    + " has no placement yet (metadata is still being applied on this node); retry"));
        }
        ShardPlacement p = placement.get();
        if (p.status() != ShardStatus.ONLINE) {
            return new Leadership.Unavailable(FelixError.of(ErrorCode.UNAVAILABLE, p.reason() != null ? p.reason()
                    : what + " is unavailable"));
        }
        if (view.localNodeId().equals(p.leader())) {
            return new Leadership.Here(p.epoch());
        }
        Optional<NodeInfo> leader = view.node(p.leader());
        if (leader.isEmpty() || leader.get().clientAddress() == null) {
            return new Leadership.Unavailable(FelixError.of(ErrorCode.UNAVAILABLE, "the leader of " + what
                    + " (node " + p.leader() + ") is not known here yet; retry"));
        }
        if (!leader.get().up()) {
            return new Leadership.Unavailable(FelixError.of(ErrorCode.UNAVAILABLE, "the leader of " + what + " (node "
                    + p.leader() + ") is down; its successor is being decided"));
        }
        return new Leadership.Elsewhere(new NodeRef(p.leader(), leader.get().clientAddress()), p.epoch());
    }
}
