package dev.felix.core.stream;

/**
 * A batch of payloads to append to one shard.
 *
 * @param payloads      the events, in order; ownership passes to the shard (do not modify them)
 * @param payloadBytes  sum of the payload lengths (for queue accounting)
 * @param listener      told when the batch is accepted or failed; null when nobody waits for an ack
 */
public record PublishRequest(byte[][] payloads, long payloadBytes, PublishListener listener) {

    public PublishRequest {
        if (payloads.length == 0) {
            throw new IllegalArgumentException("a publish carries at least one event");
        }
    }

    public static PublishRequest of(byte[][] payloads, PublishListener listener) {
        long bytes = 0;
        for (byte[] p : payloads) {
            bytes += p.length;
        }
        return new PublishRequest(payloads, bytes, listener);
    }

    public int eventCount() {
        return payloads.length;
    }
}
