package dev.felix.cluster.replication;

import java.util.Map;

/**
 * How far a shard this node leads has got, for status and metrics.
 *
 * @param highWatermark offset below which readers may see records
 * @param logEnd        offset after the leader's last record
 * @param followerEnds  each follower's log end as it last told the leader (0 before it fetched)
 */
public record LeaderProgress(long highWatermark, long logEnd, Map<String, Long> followerEnds) {
    public LeaderProgress {
        followerEnds = Map.copyOf(followerEnds);
    }
}
