package dev.felix.cluster;

import java.util.List;
import java.util.Optional;

/**
 * This node's replica of cluster metadata: members and liveness, and where every replicated unit lives.
 *
 * <p><b>Threads.</b> Thread-safe; every read answers from local memory without blocking, so the data path
 * may ask on every request. The view may lag the metadata leader by a few milliseconds; epochs protect
 * correctness, not the view's freshness.
 */
public interface ClusterView {

    /** This node's id. */
    String localNodeId();

    /** Every member, sorted by id. */
    List<NodeInfo> nodes();

    Optional<NodeInfo> node(String nodeId);

    /** Where {@code key} lives, if it exists. */
    Optional<ShardPlacement> placement(ShardKey key);

    /** Every placement. */
    List<ShardPlacement> placements();

    /** The index of the last applied metadata change; grows with every change. */
    long version();

    /** Adds a listener for changes from now on. */
    void addListener(ClusterListener listener);
}
