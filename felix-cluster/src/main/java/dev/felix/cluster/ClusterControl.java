package dev.felix.cluster;

import java.util.concurrent.CompletableFuture;

/**
 * The transitions a node asks for itself; each is a compare-and-set on the unit's epoch, committed through
 * Raft. The future fails with a {@link dev.felix.core.FelixException}: {@code bad_request} naming the
 * precondition that no longer holds (another epoch, another leader, a target that is no replica or is down),
 * {@code unavailable} when no metadata quorum answers in time.
 */
public interface ClusterControl {

    /**
     * The leader of {@code key} hands leadership to {@code toNode}, a replica it has verified holds its whole
     * log (a clean shutdown, a planned move): the new leader gets epoch {@code expectedEpoch + 1}. The only
     * way a {@code leader}-consistency unit changes leader while its leader lives.
     */
    CompletableFuture<ShardPlacement> handOff(ShardKey key, long expectedEpoch, String toNode);

    /**
     * The recorded leader of {@code key}, back with its disk after the unit went unavailable (it was lost
     * without a hand-off), having adopted any records of its own epoch a replica held past its recovered
     * end, takes leadership again at epoch {@code expectedEpoch + 1} and makes the unit online.
     */
    CompletableFuture<ShardPlacement> resumeLeadership(ShardKey key, long expectedEpoch);

    /**
     * Sends this node's replica reports to the metadata leader now rather than at the next heartbeat: a replica
     * that just stopped following a lost leader is what a {@code quorum} failover waits for. Never blocks; with
     * a heartbeat already in flight (it may predate the news) another one follows when it ends.
     */
    default void reportNow() {
    }
}
