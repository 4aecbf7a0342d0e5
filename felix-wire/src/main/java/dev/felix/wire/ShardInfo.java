package dev.felix.wire;

/**
 * Offsets of one shard in {@code stream_info.shard_info} (extension, {@link Capabilities#ADMIN}).
 * JSON object {@code {"shard":u32,"base_offset":u64,"next_offset":u64}}, keys in that order.
 *
 * @param shard      u32 shard index (unsigned semantics)
 * @param baseOffset u64, the oldest retained offset
 * @param nextOffset u64, the offset the next appended event will get
 */
public record ShardInfo(int shard, long baseOffset, long nextOffset) {
    @Override
    public String toString() {
        return "ShardInfo[shard=" + Integer.toUnsignedString(shard) + ", baseOffset="
            + Long.toUnsignedString(baseOffset) + ", nextOffset=" + Long.toUnsignedString(nextOffset) + "]";
    }
}
