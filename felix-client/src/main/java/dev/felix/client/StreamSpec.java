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
 * @param noReplay        ephemeral only: no subscriber needs a lost event again (presence, live telemetry): a node
 *                        relaying the stream counts what it loses and never fences or closes a subscriber for it
 */
public record StreamSpec(int shards, boolean durable, String fsync, Long retentionBytes, Duration retentionAge,
                         String consistency, Integer replicas, boolean noReplay) {

    /** Without {@code no_replay}. */
    public StreamSpec(int shards, boolean durable, String fsync, Long retentionBytes, Duration retentionAge,
            String consistency, Integer replicas) {
        this(shards, durable, fsync, retentionBytes, retentionAge, consistency, replicas, false);
    }

    /** Without replication settings (a single node, or the cluster's defaults). */
    public StreamSpec(int shards, boolean durable, String fsync, Long retentionBytes, Duration retentionAge) {
        this(shards, durable, fsync, retentionBytes, retentionAge, null, null);
    }

    /** This definition with a consistency and replica count (a cluster's durable stream). */
    public StreamSpec replicated(String consistency, Integer replicas) {
        return new StreamSpec(shards, durable, fsync, retentionBytes, retentionAge, consistency, replicas, noReplay);
    }

    /** This (ephemeral) definition with {@code no_replay}. */
    public StreamSpec withoutReplay() {
        return new StreamSpec(shards, durable, fsync, retentionBytes, retentionAge, consistency, replicas, true);
    }

    public static StreamSpec ephemeral(int shards) {
        return new StreamSpec(shards, false, null, null, null);
    }

    public static StreamSpec durable(int shards, String fsync) {
        return new StreamSpec(shards, true, fsync, null, null);
    }
}
