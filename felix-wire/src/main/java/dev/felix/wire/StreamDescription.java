package dev.felix.wire;

import java.util.List;
import java.util.Objects;

/**
 * A stream's configuration and state, as carried by {@code stream_info} (flattened into the message)
 * and by each element of {@code stream_list_result.streams} (extension, {@link Capabilities#ADMIN}).
 *
 * <p>JSON keys in order: {@code tenant_id, namespace, stream, shards, durable, fsync?,
 * retention_bytes?, retention_age_ms?, shard_info?, consistency?, replicas?}} (the last two from a clustered
 * broker, extension {@link Capabilities#CLUSTER}).
 *
 * @param tenantId       tenant
 * @param namespace      namespace
 * @param stream         stream name
 * @param shards         u32 shard count
 * @param durable        whether the stream is backed by a log
 * @param fsync          fsync policy ({@code on_commit | periodic | none}), or null if not applicable
 * @param retentionBytes u64 retention by size, or null for none
 * @param retentionAgeMs u64 retention by age in ms, or null for none
 * @param shardInfo      per-shard offsets, or null when not reported (the list is copied)
 * @param consistency    {@code leader | quorum}, or null when not clustered
 * @param replicas       u32 copies of each shard, or null when not clustered
 * @param noReplay       true for an ephemeral stream created with {@code no_replay}; null (absent) otherwise
 */
public record StreamDescription(
    String tenantId, String namespace, String stream, int shards, boolean durable, String fsync,
    Long retentionBytes, Long retentionAgeMs, List<ShardInfo> shardInfo, String consistency, Integer replicas,
    Boolean noReplay) {

    /** Without {@code no_replay}. */
    public StreamDescription(String tenantId, String namespace, String stream, int shards, boolean durable,
            String fsync, Long retentionBytes, Long retentionAgeMs, List<ShardInfo> shardInfo, String consistency,
            Integer replicas) {
        this(tenantId, namespace, stream, shards, durable, fsync, retentionBytes, retentionAgeMs, shardInfo,
                consistency, replicas, null);
    }

    /** A stream of a broker that is not clustered. */
    public StreamDescription(String tenantId, String namespace, String stream, int shards, boolean durable,
            String fsync, Long retentionBytes, Long retentionAgeMs, List<ShardInfo> shardInfo) {
        this(tenantId, namespace, stream, shards, durable, fsync, retentionBytes, retentionAgeMs, shardInfo, null, null);
    }

    /** @throws NullPointerException if a required field is null */
    public StreamDescription {
        Objects.requireNonNull(tenantId, "tenant_id");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(stream, "stream");
        shardInfo = shardInfo == null ? null : List.copyOf(shardInfo);
    }
}
