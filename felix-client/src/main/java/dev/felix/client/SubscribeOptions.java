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
 */
public record SubscribeOptions(StreamRef stream, StartPosition start, Integer shard, QueuePolicy queuePolicy,
        Integer queueEvents) {

    public SubscribeOptions {
        Objects.requireNonNull(stream, "stream");
        if (start == null) {
            start = new StartPosition.Latest();
        }
    }

    public static SubscribeOptions of(StreamRef stream) {
        return new SubscribeOptions(stream, null, null, null, null);
    }

    public SubscribeOptions from(StartPosition position) {
        return new SubscribeOptions(stream, position, shard, queuePolicy, queueEvents);
    }

    public SubscribeOptions fromEarliest() {
        return from(new StartPosition.Earliest());
    }

    public SubscribeOptions fromOffset(long offset) {
        return from(new StartPosition.AtOffset(offset));
    }

    public SubscribeOptions onShard(int index) {
        return new SubscribeOptions(stream, start, index, queuePolicy, queueEvents);
    }

    public SubscribeOptions withQueue(QueuePolicy policy, Integer events) {
        return new SubscribeOptions(stream, start, shard, policy, events);
    }
}
