package dev.felix.client;

/**
 * The subscription missed the offsets {@code from..to} (inclusive) of a shard. It arrives in order,
 * before the first event after the gap.
 *
 * @param reason why: {@code queue_overflow} (the broker's subscriber queue was full),
 *               {@code retention} (removed before it was read), {@code incarnation} (an ephemeral
 *               shard restarted), {@code client_queue_overflow} (this client's own receive queue was
 *               full), {@code unannounced} (offsets jumped without a notice, e.g. an older broker). An
 *               {@code incarnation} gap's range is in the earlier incarnation's numbering ({@code to} is
 *               2^64-1, i.e. -1 as a signed long: "everything from {@code from} on"); the events after it are
 *               numbered from the new incarnation's start.
 */
public record Gap(StreamRef stream, int shard, long from, long to, String reason) implements Item {

    /** Number of events missed; -1 when unknown (an {@code incarnation} gap runs to the end of an earlier numbering). */
    public long missed() {
        return to == Long.MAX_VALUE || to < 0 ? -1 : to - from + 1;
    }
}
