package dev.felix.wire;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Multiplexed shared event batch, frame flags {@code 0x8024} (broker to client, extension
 * {@link Capabilities#SUBSCRIPTION_MUX}): one batch of one shard for every subscription channel listed, on a
 * multiplexed session stream. The tail is exactly the body of a {@link BinarySharedEventBatch} with a base
 * offset, so a broker sends the batch once per connection — not once per subscription — and writes the
 * same encoded bytes it shares with every other connection behind a small per-connection prefix.
 *
 * <pre>
 *  offset      size  field
 *  0           2     channel_count (u16), at least 1
 *  2           4n    channel (u32) x channel_count: the channels ({@code mux_subscribed.channels}) it is for
 *  2+4n        8     base_offset (u64)
 *  10+4n       4     count (u32), at most remaining / 4
 *  ...         ...   count x blob32: u32 payload_len, then payload_len bytes
 * </pre>
 *
 * @param channels   the subscription channels this batch is delivered to (copied)
 * @param baseOffset u64 offset of the first payload
 * @param payloads   event payloads in offset order
 */
public record BinaryMuxEventBatch(int[] channels, long baseOffset, List<byte[]> payloads) implements BinaryPayload {

    /** Most channels one frame may list. */
    public static final int MAX_CHANNELS = 0xFFFF;

    /**
     * @throws NullPointerException     if an argument or a payload is null
     * @throws IllegalArgumentException if there is no channel or more than {@value #MAX_CHANNELS}
     */
    public BinaryMuxEventBatch {
        channels = Objects.requireNonNull(channels, "channels").clone();
        if (channels.length == 0 || channels.length > MAX_CHANNELS) {
            throw new IllegalArgumentException("a mux event batch lists 1.." + MAX_CHANNELS + " channels, not "
                + channels.length);
        }
        payloads = List.copyOf(Objects.requireNonNull(payloads, "payloads"));
    }

    @Override
    public int[] channels() {
        return channels.clone();
    }

    /** {@code 0x8024}. */
    @Override
    public int frameFlags() {
        return FrameFlags.MUX_DELIVERY | FrameFlags.BINARY_EVENT_BATCH_SHARED | FrameFlags.EVENT_BATCH_OFFSETS;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BinaryMuxEventBatch b && Arrays.equals(channels, b.channels) && baseOffset == b.baseOffset
            && Bytes.listEquals(payloads, b.payloads);
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.hashCode(channels), baseOffset, Bytes.listHash(payloads));
    }

    @Override
    public String toString() {
        return "BinaryMuxEventBatch[channels=" + Arrays.toString(channels) + ", baseOffset="
            + Long.toUnsignedString(baseOffset) + ", payloads=" + Bytes.describe(payloads) + "]";
    }
}
