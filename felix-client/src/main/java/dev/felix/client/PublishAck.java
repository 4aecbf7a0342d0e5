package dev.felix.client;

/**
 * A publish the broker accepted at its durability point.
 *
 * @param shard        the shard it went to (-1 if the broker did not say)
 * @param firstOffset  the offset of its first event (-1 if the broker did not say)
 * @param count        number of events
 */
public record PublishAck(int shard, long firstOffset, int count) {
}
