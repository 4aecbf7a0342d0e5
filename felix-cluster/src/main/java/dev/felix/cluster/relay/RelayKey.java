package dev.felix.cluster.relay;

import dev.felix.core.StreamName;
import java.util.Objects;

/**
 * One relayed shard: {@code (tenant, namespace, stream, shard)}. It picks the worker that delivers the shard, so
 * every batch of one shard is delivered by one worker, in order.
 *
 * @param stream the stream's full name
 * @param shard  the shard index
 */
public record RelayKey(StreamName stream, int shard) {

    public RelayKey {
        Objects.requireNonNull(stream, "stream");
        if (shard < 0) {
            throw new IllegalArgumentException("shard must be >= 0, was " + shard);
        }
    }

    /** The worker of {@code workers} that delivers this shard: the same for the relay's life. */
    int worker(int workers) {
        int h = stream.tenant().hashCode();
        h = 31 * h + stream.namespace().hashCode();
        h = 31 * h + stream.stream().hashCode();
        h = 31 * h + shard;
        h ^= h >>> 16; // spread the low bits the modulo keeps
        return Math.floorMod(h, workers);
    }

    @Override
    public String toString() {
        return stream + "#" + shard;
    }
}
