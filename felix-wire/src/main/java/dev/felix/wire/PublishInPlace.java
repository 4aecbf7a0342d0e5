package dev.felix.wire;

/**
 * A binary publish batch ({@code 0x0001}, {@code 0x0009} or {@code 0x0029}) decoded without copying its payloads: its
 * names and route, and where its events lie in the decoded buffer. Those events are a run of
 * {@code count} blobs, each a u32 length followed by its bytes, from {@code eventsAt} (the first length, just after
 * the count) for {@code eventsLength} bytes: the layout the event list of a delivery frame has too, so a broker can
 * keep or forward the run as it is. Every length was checked as {@link BinaryPublishBatch}'s decoder checks it.
 *
 * @param tenantId     tenant
 * @param namespace    namespace
 * @param stream       stream
 * @param key          routing key ({@code 0x0029} with a key route), else null
 * @param shard        shard ({@code 0x0029} with a shard route), else null
 * @param count        number of events
 * @param eventsAt     index of the first event's length in the decoded buffer, relative to its position when decoded
 * @param eventsLength bytes of the events, lengths included
 * @param payloadBytes bytes of the payloads alone
 */
public record PublishInPlace(String tenantId, String namespace, String stream, String key, Integer shard, int count,
                             int eventsAt, int eventsLength, long payloadBytes) {
}
