package dev.felix.wire;

import java.util.List;
import java.util.Objects;

/**
 * Per-subscriber ("legacy") event batch, frame flags {@code 0x0002}, or {@code 0x0022} with a base
 * offset (broker to client). Upstream sends it for replay (history, backlog, catch-up).
 *
 * <pre>
 *  offset    size  field
 *  0         8     subscription_id (u64); must match the stream's event_stream_hello
 *  8         8     base_offset (u64), only with flag 0x0020
 *  8 or 16   4     count (u32), at most remaining / 4
 *  ...       ...   count x blob32: u32 payload_len, then payload_len bytes
 * </pre>
 *
 * Payload {@code i} has offset {@code base_offset + i}. Trailing bytes are rejected. To encode one
 * frame for many subscribers without building this record, use {@link EventBatchEncoder}.
 *
 * @param subscriptionId u64 subscription id
 * @param baseOffset     u64 offset of the first payload, or null (frame flags {@code 0x0002})
 * @param payloads       event payloads in offset order
 */
public record BinaryEventBatch(long subscriptionId, Long baseOffset, List<byte[]> payloads)
    implements BinaryPayload {

    /** @throws NullPointerException if {@code payloads} or an element is null */
    public BinaryEventBatch {
        payloads = List.copyOf(Objects.requireNonNull(payloads, "payloads"));
    }

    /** {@code 0x0022} with a base offset, else {@code 0x0002}. */
    @Override
    public int frameFlags() {
        return FrameFlags.BINARY_EVENT_BATCH | (baseOffset != null ? FrameFlags.EVENT_BATCH_OFFSETS : 0);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BinaryEventBatch b && subscriptionId == b.subscriptionId
            && Objects.equals(baseOffset, b.baseOffset) && Bytes.listEquals(payloads, b.payloads);
    }

    @Override
    public int hashCode() {
        return Objects.hash(subscriptionId, baseOffset, Bytes.listHash(payloads));
    }

    @Override
    public String toString() {
        return "BinaryEventBatch[subscriptionId=" + Long.toUnsignedString(subscriptionId) + ", baseOffset="
            + Bytes.u64(baseOffset) + ", payloads=" + Bytes.describe(payloads) + "]";
    }
}
