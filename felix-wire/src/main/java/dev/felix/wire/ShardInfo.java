package dev.felix.wire;

import java.util.List;

/**
 * Offsets of one shard in {@code stream_info.shard_info} (extension, {@link Capabilities#ADMIN}).
 * JSON object {@code {"shard":u32,"base_offset":u64,"next_offset":u64}}, keys in that order; a clustered
 * broker (extension {@link Capabilities#CLUSTER}) adds {@code leader, epoch, replicas, status}.
 *
 * @param shard      u32 shard index (unsigned semantics)
 * @param baseOffset u64, the oldest retained offset
 * @param nextOffset u64, the offset the next appended event will get
 * @param leader     cluster: node id of the shard's leader (null when not clustered)
 * @param epoch      cluster: leader epoch
 * @param replicas   cluster: node ids holding a copy
 * @param status     cluster: {@code online}, or why nobody may serve it
 */
public record ShardInfo(int shard, long baseOffset, long nextOffset, String leader, Long epoch, List<String> replicas,
                        String status) {

    public ShardInfo {
        replicas = replicas == null ? null : List.copyOf(replicas);
    }

    /** A shard of a broker that is not clustered. */
    public ShardInfo(int shard, long baseOffset, long nextOffset) {
        this(shard, baseOffset, nextOffset, null, null, null, null);
    }

    @Override
    public String toString() {
        return "ShardInfo[shard=" + Integer.toUnsignedString(shard) + ", baseOffset="
            + Long.toUnsignedString(baseOffset) + ", nextOffset=" + Long.toUnsignedString(nextOffset)
            + (leader == null ? "" : ", leader=" + leader + ", epoch=" + epoch + ", replicas=" + replicas
                + ", status=" + status) + "]";
    }
}
