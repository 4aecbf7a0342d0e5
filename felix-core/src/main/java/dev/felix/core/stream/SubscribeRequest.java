package dev.felix.core.stream;

import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;

/**
 * A subscription to one shard.
 *
 * @param start        where to start reading
 * @param policy       what the subscriber's queue does when full; null = the stream kind's default
 * @param limits       queue limits; null = the broker default
 * @param incarnation  for a resume on an ephemeral shard: the incarnation the offset belongs to (0 =
 *                     not known). When it differs from the shard's, the memory that offset referred
 *                     to is gone and the subscriber is told with an {@code incarnation} gap.
 */
public record SubscribeRequest(StartPosition start, QueuePolicy policy, QueueLimits limits, long incarnation) {

    public SubscribeRequest {
        if (start == null) {
            start = StartPosition.LATEST;
        }
    }

    public static SubscribeRequest from(StartPosition start) {
        return new SubscribeRequest(start, null, null, 0);
    }
}
