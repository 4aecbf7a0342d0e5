package dev.felix.client;

import dev.felix.wire.QueuePolicy;
import dev.felix.wire.StartPosition;
import java.util.Objects;

/**
 * What to subscribe to and how.
 *
 * @param stream       the stream
 * @param start        where to start: {@link StartPosition.Latest} (default), {@link StartPosition.Earliest}
 *                     or {@link StartPosition.AtOffset} (the first offset not yet seen)
 * @param shard        one shard only, or null for every shard of the stream
 * @param queuePolicy  the broker-side subscriber queue policy, or null for the stream's default
 *                     ({@code drop_new} ephemeral, {@code catch_up} durable)
 * @param queueEvents  a smaller broker-side queue than the broker default, or null
 * @param incarnation  for a resume on an ephemeral stream: the shard incarnation the offset belongs to
 *                     ({@link Subscription#incarnation(int)} of the earlier subscription), or null. If the
 *                     shard has restarted since, the first item is an {@code incarnation} gap.
 * @param healGaps     re-read missed ranges from the broker (the log of a durable stream, or memory while it
 *                     still holds them) and deliver them in place of the gap notice, in order; what cannot be
 *                     re-read stays a gap (reason {@code retention})
 */
public record SubscribeOptions(StreamRef stream, StartPosition start, Integer shard, QueuePolicy queuePolicy,
        Integer queueEvents, Long incarnation, boolean healGaps) {

    public SubscribeOptions {
        Objects.requireNonNull(stream, "stream");
        if (start == null) {
            start = new StartPosition.Latest();
        }
    }

    public static SubscribeOptions of(StreamRef stream) {
        return new SubscribeOptions(stream, null, null, null, null, null, false);
    }

    public SubscribeOptions from(StartPosition position) {
        return new SubscribeOptions(stream, position, shard, queuePolicy, queueEvents, incarnation, healGaps);
    }

    public SubscribeOptions fromEarliest() {
        return from(new StartPosition.Earliest());
    }

    public SubscribeOptions fromOffset(long offset) {
        return from(new StartPosition.AtOffset(offset));
    }

    /** Resume at {@code offset} of the shard incarnation {@code incarnation} (ephemeral streams). */
    public SubscribeOptions resume(long offset, long incarnation) {
        return new SubscribeOptions(stream, new StartPosition.AtOffset(offset), shard, queuePolicy, queueEvents,
                incarnation, healGaps);
    }

    public SubscribeOptions onShard(int index) {
        return new SubscribeOptions(stream, start, index, queuePolicy, queueEvents, incarnation, healGaps);
    }

    public SubscribeOptions withQueue(QueuePolicy policy, Integer events) {
        return new SubscribeOptions(stream, start, shard, policy, events, incarnation, healGaps);
    }

    /** Re-read missed ranges instead of surfacing gaps, where the broker still has them. */
    public SubscribeOptions healingGaps() {
        return new SubscribeOptions(stream, start, shard, queuePolicy, queueEvents, incarnation, true);
    }
}
