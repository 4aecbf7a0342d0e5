package dev.felix.client;

/**
 * The subscription missed the offsets {@code from..to} (inclusive) of a shard. It arrives in order,
 * before the first event after the gap.
 *
 * @param reason why: {@code queue_overflow} (the broker's subscriber queue was full),
 *               {@code retention} (removed before it was read), {@code incarnation} (an ephemeral
 *               shard restarted), {@code client_queue_overflow} (this client's own receive queue was
 *               full), or {@code unannounced} (offsets jumped without a notice, e.g. an older broker)
 */
public record Gap(StreamRef stream, int shard, long from, long to, String reason) implements Item {

    /** Number of events missed. */
    public long missed() {
        return to - from + 1;
    }
}
