package dev.felix.core.stream;

/**
 * A point-in-time view of a shard, for admin APIs and metrics.
 *
 * @param shard          index within the stream
 * @param oldestOffset   oldest offset still readable (memory ring, or the log for durable streams)
 * @param nextOffset     offset the next event will get (the tail)
 * @param incarnation    changes whenever an ephemeral shard loses its memory
 * @param subscribers    current subscribers
 * @param writerQueued   events waiting in the writer queue
 */
public record ShardInfo(int shard, long oldestOffset, long nextOffset, long incarnation, int subscribers,
        long writerQueued) {
}
