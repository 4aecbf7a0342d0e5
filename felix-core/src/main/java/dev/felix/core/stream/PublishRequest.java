package dev.felix.core.stream;

/**
 * A batch of payloads to append to one shard: heap arrays, or one region of {@link LentPayloads}.
 *
 * @param payloads      the events, in order, as arrays; ownership passes to the shard (do not modify them); null when
 *                      they are {@code lent}
 * @param lent          the events in lent memory, whose reference passes to the shard (it gives it back if the
 *                      publish fails, or hands it to the batch it appends); null when they are arrays
 * @param eventCount    the number of events
 * @param payloadBytes  sum of the payload lengths (for queue accounting)
 * @param listener      told when the batch is accepted or failed; null when nobody waits for an ack
 */
public record PublishRequest(byte[][] payloads, LentPayloads lent, int eventCount, long payloadBytes,
        PublishListener listener) {

    public PublishRequest {
        if (eventCount <= 0) {
            throw new IllegalArgumentException("a publish carries at least one event");
        }
        if ((payloads == null) == (lent == null)) {
            throw new IllegalArgumentException("a publish carries its events as arrays or lent, one of the two");
        }
        if (payloads != null && payloads.length != eventCount) {
            throw new IllegalArgumentException(payloads.length + " payloads but an event count of " + eventCount);
        }
    }

    public static PublishRequest of(byte[][] payloads, PublishListener listener) {
        long bytes = 0;
        for (byte[] p : payloads) {
            bytes += p.length;
        }
        return new PublishRequest(payloads, null, payloads.length, bytes, listener);
    }

    /** A publish of {@code count} events lent in {@code lent} (its reference passes to the shard). */
    public static PublishRequest lent(LentPayloads lent, int count, long payloadBytes, PublishListener listener) {
        return new PublishRequest(null, lent, count, payloadBytes, listener);
    }

    /** Gives back the lent memory of a publish that will not be appended; nothing for arrays. */
    public void releasePayloads() {
        if (lent != null) {
            lent.release();
        }
    }
}
