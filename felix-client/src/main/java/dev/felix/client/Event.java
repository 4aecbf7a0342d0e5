package dev.felix.client;

/**
 * One delivered event.
 *
 * @param stream   the stream it belongs to
 * @param shard    the shard within the stream
 * @param offset   its offset in the shard (-1 if the broker did not send offsets)
 * @param payload  the bytes as published (do not modify)
 */
public record Event(StreamRef stream, int shard, long offset, byte[] payload) implements Item {

    @Override
    public String toString() {
        return "Event[" + stream + "/" + shard + "@" + offset + ", " + payload.length + " bytes]";
    }
}
