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
 */
public record StreamSpec(int shards, boolean durable, String fsync, Long retentionBytes, Duration retentionAge) {

    public static StreamSpec ephemeral(int shards) {
        return new StreamSpec(shards, false, null, null, null);
    }

    public static StreamSpec durable(int shards, String fsync) {
        return new StreamSpec(shards, true, fsync, null, null);
    }
}
