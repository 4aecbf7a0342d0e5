package dev.felix.client;

import java.time.Duration;

/**
 * The definition of a stream to create.
 *
 * @param shards          number of shards (default 1)
 * @param durable         keep events in a log on disk
 * @param fsync           durable only: {@code on_commit}, {@code periodic} or {@code none}; null = broker default
 * @param retentionBytes  durable only: per-shard size bound, or null
 * @param retentionAge    durable only: age bound, or null
 * @param consistency     cluster, durable only: {@code leader} or {@code quorum}; null = {@code leader}
 * @param replicas        cluster, durable only: copies of each shard; null = the cluster's default
 */
public record StreamSpec(int shards, boolean durable, String fsync, Long retentionBytes, Duration retentionAge,
                         String consistency, Integer replicas) {

    /** Without replication settings (a single node, or the cluster's defaults). */
    public StreamSpec(int shards, boolean durable, String fsync, Long retentionBytes, Duration retentionAge) {
        this(shards, durable, fsync, retentionBytes, retentionAge, null, null);
    }

    /** This definition with a consistency and replica count (a cluster's durable stream). */
    public StreamSpec replicated(String consistency, Integer replicas) {
        return new StreamSpec(shards, durable, fsync, retentionBytes, retentionAge, consistency, replicas);
    }

    public static StreamSpec ephemeral(int shards) {
        return new StreamSpec(shards, false, null, null, null);
    }

    public static StreamSpec durable(int shards, String fsync) {
        return new StreamSpec(shards, true, fsync, null, null);
    }
}
