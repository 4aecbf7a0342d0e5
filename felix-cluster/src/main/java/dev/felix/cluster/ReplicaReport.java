package dev.felix.cluster;

/**
 * A node's report on its copy of one unit, sent with every heartbeat to the metadata leader. Replica
 * progress never goes through Raft: the metadata leader keeps the latest reports in memory and uses them
 * only to decide a failover.
 *
 * @param key         the unit
 * @param lastEpoch   epoch of the newest record in the local log ({@code -1}: empty or none recorded)
 * @param logEnd      offset after the newest record in the local log
 * @param durableEnd  offset below which the local log is forced to disk
 * @param fencedEpoch the epoch whose leader this replica has stopped following because metadata marked
 *                    that leader down ({@code -1}: not fenced). Only fenced reports may elect a new
 *                    leader: a replica still fetching could receive records after it reported.
 */
public record ReplicaReport(ShardKey key, long lastEpoch, long logEnd, long durableEnd, long fencedEpoch) {
}
