package dev.felix.core.testing;

/** What a {@link dev.felix.core.stream.PublishListener} was told on acceptance. */
public record Ack(int shard, long firstOffset, int count) {

    /** Offset after the last event of this publish. */
    public long endOffset() {
        return firstOffset + count;
    }
}
