package dev.felix.wire;

import java.util.List;
import java.util.Objects;

/**
 * Shared event batch, frame flags {@code 0x0004}, or {@code 0x0024} with a base offset (broker to
 * client): the live-delivery format. One encoding serves every subscriber of a stream; the
 * subscription is known from the event stream's {@code event_stream_hello}.
 *
 * <pre>
 *  offset    size  field
 *  0         8     base_offset (u64), only with flag 0x0020
 *  0 or 8    4     count (u32), at most remaining / 4
 *  ...       ...   count x blob32: u32 payload_len, then payload_len bytes
 * </pre>
 *
 * Upstream sets {@code 0x0020} only when the subscriber offered it and the stream is durable. To
 * encode one frame for many subscribers without building this record, use {@link EventBatchEncoder}.
 *
 * @param baseOffset u64 offset of the first payload, or null (frame flags {@code 0x0004})
 * @param payloads   event payloads in offset order
 */
public record BinarySharedEventBatch(Long baseOffset, List<byte[]> payloads) implements BinaryPayload {

    /** @throws NullPointerException if {@code payloads} or an element is null */
    public BinarySharedEventBatch {
        payloads = List.copyOf(Objects.requireNonNull(payloads, "payloads"));
    }

    /** {@code 0x0024} with a base offset, else {@code 0x0004}. */
    @Override
    public int frameFlags() {
        return FrameFlags.BINARY_EVENT_BATCH_SHARED | (baseOffset != null ? FrameFlags.EVENT_BATCH_OFFSETS : 0);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BinarySharedEventBatch b && Objects.equals(baseOffset, b.baseOffset)
            && Bytes.listEquals(payloads, b.payloads);
    }

    @Override
    public int hashCode() {
        return Objects.hash(baseOffset, Bytes.listHash(payloads));
    }

    @Override
    public String toString() {
        return "BinarySharedEventBatch[baseOffset=" + Bytes.u64(baseOffset) + ", payloads="
            + Bytes.describe(payloads) + "]";
    }
}
