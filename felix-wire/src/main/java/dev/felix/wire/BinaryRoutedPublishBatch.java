package dev.felix.wire;

import java.util.Objects;

/**
 * Routed acked binary publish batch, frame flags {@code 0x0029} ({@code 0x0009 | 0x0020}, client to
 * broker; extension {@link Capabilities#ROUTED_BINARY_PUBLISH}): what an acknowledged publish of this
 * SDK needs that {@link BinaryAckedPublishBatch} cannot say — where it goes (a key or an explicit
 * shard) — and a reply, {@link BinaryPublishResult} ({@code 0x0030}), that carries what
 * {@code publish_ok} carries (first offset, count, shard) or an error with its stable code.
 *
 * <pre>
 *  offset    size  field
 *  0         8     request_id (u64)               } the 9-byte {@link AckedPublishPrefix}, as in 0x0009,
 *  8         1     ack_mode: 1 or 2               } so a broker can answer a body it cannot read
 *  9         1     route: 0 = any shard, 1 = key, 2 = shard (anything else: {@link WireError#BAD_FIELD})
 *  10        ...   route 1: str16 key; route 2: u32 shard; route 0: nothing
 *  ...       ...   exactly the {@link BinaryPublishBatch} body
 * </pre>
 *
 * Example, id 7, per_batch, key {@code "k"}, {@code t1/default/demo ["hello"]}:
 * {@code 0000000000000007 02 01 0001 6b | 0002 7431 | 0007 64656661756c74 | 0004 64656d6f | 00000001 | 00000005 68656c6c6f}.
 *
 * @param requestId u64 request id, echoed in the result
 * @param ackMode   {@link AckMode#PER_MESSAGE} or {@link AckMode#PER_BATCH}
 * @param key       the key whose hash picks the shard, or null
 * @param shard     the u32 shard to write to, or null; at most one of {@code key} and {@code shard}
 * @param batch     the body
 */
public record BinaryRoutedPublishBatch(long requestId, AckMode ackMode, String key, Integer shard,
    BinaryPublishBatch batch) implements BinaryPayload {

    /** Route byte: the broker picks the shard (round robin). */
    public static final int ROUTE_ANY = 0;
    /** Route byte: a str16 key follows. */
    public static final int ROUTE_KEY = 1;
    /** Route byte: a u32 shard follows. */
    public static final int ROUTE_SHARD = 2;

    /** @throws IllegalArgumentException for {@link AckMode#NONE}, or both a key and a shard */
    public BinaryRoutedPublishBatch {
        AckedPublishPrefix.checkMode(ackMode);
        Objects.requireNonNull(batch, "batch");
        if (key != null && shard != null) {
            throw new IllegalArgumentException("a publish names a key or a shard, not both");
        }
    }

    /** {@code 0x0029}. */
    @Override
    public int frameFlags() {
        return FrameFlags.BINARY_PUBLISH_BATCH | FrameFlags.BINARY_PUBLISH_ACKED | FrameFlags.EVENT_BATCH_OFFSETS;
    }

    /** The route byte of this batch. */
    public int route() {
        return key != null ? ROUTE_KEY : shard != null ? ROUTE_SHARD : ROUTE_ANY;
    }

    @Override
    public String toString() {
        return "BinaryRoutedPublishBatch[requestId=" + Long.toUnsignedString(requestId) + ", ackMode=" + ackMode
            + ", key=" + key + ", shard=" + (shard == null ? null : Integer.toUnsignedString(shard))
            + ", batch=" + batch + "]";
    }
}
