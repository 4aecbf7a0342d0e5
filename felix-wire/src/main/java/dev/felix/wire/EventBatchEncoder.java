package dev.felix.wire;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;

/**
 * Encode-once event batch frames for fanout: computes the exact frame size, then writes header and
 * payload in one pass from a slice of a payload array, without building intermediate records or
 * buffers. The broker encodes one frame per batch into one (reference-counted) buffer and shares it
 * across every subscriber of the stream:
 *
 * <pre>{@code
 * int len = EventBatchEncoder.sharedFrameLength(true, payloads, from, n);
 * ByteBuf buf = alloc.buffer(len);
 * EventBatchEncoder.encodeSharedWithOffset(buf.nioBuffer(0, len), baseOffset, payloads, from, n);
 * buf.writerIndex(len);   // then retainedDuplicate() per subscriber
 * }</pre>
 *
 * Layouts: {@link BinarySharedEventBatch} ({@code 0x0004}/{@code 0x0024}) and
 * {@link BinaryEventBatch} ({@code 0x0002}/{@code 0x0022}). All integers big-endian, whatever the
 * destination buffer's byte order. The frame size is not checked against the receiver's maximum:
 * split batches so that {@code frameLength - 12 <= maxFrameBytes}.
 *
 * <p>Stateless and thread-safe. The payload arrays are only read.
 */
public final class EventBatchEncoder {
    /** Size of the subscription id field (per-subscriber layout only). */
    public static final int SUBSCRIPTION_ID_LENGTH = 8;
    /** Size of the base offset field (with {@link FrameFlags#EVENT_BATCH_OFFSETS} only). */
    public static final int BASE_OFFSET_LENGTH = 8;
    /** Size of the count field. */
    public static final int COUNT_LENGTH = 4;
    /** Size of each payload's length prefix. */
    public static final int PAYLOAD_LENGTH_PREFIX = 4;

    private EventBatchEncoder() {
    }

    // ------------------------------------------------------------ sizes

    /**
     * Exact frame length (12-byte header included) of a shared batch of {@code payloads[from..from+count)}.
     *
     * @throws IndexOutOfBoundsException if the range is outside the array
     * @throws IllegalArgumentException  if the frame would exceed {@link FrameHeader#MAX_SUPPORTED_FRAME_BYTES}
     */
    public static int sharedFrameLength(boolean withBaseOffset, byte[][] payloads, int from, int count) {
        return frameLength(0, withBaseOffset, payloads, from, count);
    }

    /** {@link #sharedFrameLength(boolean, byte[][], int, int)} over a whole list. */
    public static int sharedFrameLength(boolean withBaseOffset, List<byte[]> payloads) {
        byte[][] a = toArray(payloads);
        return frameLength(0, withBaseOffset, a, 0, a.length);
    }

    /**
     * Exact frame length (header included) of a per-subscriber batch of {@code payloads[from..from+count)}.
     *
     * @throws IndexOutOfBoundsException if the range is outside the array
     * @throws IllegalArgumentException  if the frame would exceed {@link FrameHeader#MAX_SUPPORTED_FRAME_BYTES}
     */
    public static int subscriberFrameLength(boolean withBaseOffset, byte[][] payloads, int from, int count) {
        return frameLength(SUBSCRIPTION_ID_LENGTH, withBaseOffset, payloads, from, count);
    }

    /** {@link #subscriberFrameLength(boolean, byte[][], int, int)} over a whole list. */
    public static int subscriberFrameLength(boolean withBaseOffset, List<byte[]> payloads) {
        byte[][] a = toArray(payloads);
        return frameLength(SUBSCRIPTION_ID_LENGTH, withBaseOffset, a, 0, a.length);
    }

    // ------------------------------------------------------------ shared 0x0004 / 0x0024

    /**
     * Writes a complete shared batch frame, flags {@code 0x0004}, at {@code dst.position()} and
     * advances it by {@link #sharedFrameLength}. Nothing is written if {@code dst} is too small.
     *
     * @throws BufferOverflowException   if {@code dst} has fewer bytes remaining than the frame length
     * @throws IndexOutOfBoundsException if the range is outside the array
     */
    public static void encodeShared(ByteBuffer dst, byte[][] payloads, int from, int count) {
        encode(dst, FrameFlags.BINARY_EVENT_BATCH_SHARED, false, 0, false, 0, payloads, from, count);
    }

    /** {@link #encodeShared(ByteBuffer, byte[][], int, int)} over a whole list. */
    public static void encodeShared(ByteBuffer dst, List<byte[]> payloads) {
        byte[][] a = toArray(payloads);
        encodeShared(dst, a, 0, a.length);
    }

    /**
     * Writes a complete shared batch frame with a base offset, flags {@code 0x0024}.
     *
     * @param baseOffset u64 offset of {@code payloads[from]}
     * @throws BufferOverflowException   if {@code dst} is too small (nothing is written)
     * @throws IndexOutOfBoundsException if the range is outside the array
     */
    public static void encodeSharedWithOffset(ByteBuffer dst, long baseOffset, byte[][] payloads, int from,
                                              int count) {
        encode(dst, FrameFlags.BINARY_EVENT_BATCH_SHARED | FrameFlags.EVENT_BATCH_OFFSETS, false, 0, true,
            baseOffset, payloads, from, count);
    }

    /** {@link #encodeSharedWithOffset(ByteBuffer, long, byte[][], int, int)} over a whole list. */
    public static void encodeSharedWithOffset(ByteBuffer dst, long baseOffset, List<byte[]> payloads) {
        byte[][] a = toArray(payloads);
        encodeSharedWithOffset(dst, baseOffset, a, 0, a.length);
    }

    // ------------------------------------------------------------ multiplexed 0x8024

    /** Length of the prefix of a multiplexed frame listing {@code channels} channels: header, count, channels. */
    public static int muxPrefixLength(int channels) {
        return FrameHeader.HEADER_LENGTH + 2 + 4 * channels;
    }

    /**
     * The prefix of a multiplexed event batch frame (flags {@code 0x8024}, {@link BinaryMuxEventBatch}) for
     * {@code channels[0..count)}: header, channel count, channels. The rest of the frame is the body — everything
     * after the 12-byte header — of the shared frame with base offset ({@code 0x0024}) of the same batch, which is
     * {@code sharedFrameLength} bytes long header included.
     */
    public static void encodeMuxPrefix(ByteBuffer dst, int[] channels, int count, int sharedFrameLength) {
        int prefix = muxPrefixLength(count);
        long payload = (long) prefix - FrameHeader.HEADER_LENGTH + sharedFrameLength - FrameHeader.HEADER_LENGTH;
        if (payload + FrameHeader.HEADER_LENGTH > FrameHeader.MAX_SUPPORTED_FRAME_BYTES) {
            throw new IllegalArgumentException("mux frame exceeds " + FrameHeader.MAX_SUPPORTED_FRAME_BYTES + " bytes");
        }
        FrameHeader.write(dst, FrameFlags.MUX_DELIVERY | FrameFlags.BINARY_EVENT_BATCH_SHARED
            | FrameFlags.EVENT_BATCH_OFFSETS, (int) payload);
        BigEndian.put16(dst, count);
        for (int i = 0; i < count; i++) {
            BigEndian.put32(dst, channels[i]);
        }
    }

    /** Exact length (header included) of the multiplexed frame {@link #encodeMux} writes. */
    public static int muxFrameLength(int channels, byte[][] payloads, int from, int count) {
        return muxPrefixLength(channels) + sharedFrameLength(true, payloads, from, count) - FrameHeader.HEADER_LENGTH;
    }

    /**
     * Writes a whole multiplexed event batch frame (flags {@code 0x8024}) for {@code channels[0..channelCount)}
     * straight from the payload arrays: the same bytes as {@link #encodeMuxPrefix} followed by the body of
     * {@link #encodeSharedWithOffset}, without a shared frame in between. A broker that writes into a buffer of the
     * connection's own anyway saves a copy of every payload this way; what is per event and encoded again per
     * connection is its four-byte length.
     *
     * @throws BufferOverflowException  if {@code dst} has fewer than {@link #muxFrameLength} bytes left (nothing is
     *                                  written)
     * @throws IllegalArgumentException if {@code channelCount} is not within 1..65535, or the frame is too large
     */
    public static void encodeMux(ByteBuffer dst, int[] channels, int channelCount, long baseOffset, byte[][] payloads,
                                 int from, int count) {
        if (channelCount < 1 || channelCount > BinaryMuxEventBatch.MAX_CHANNELS) {
            throw new IllegalArgumentException("a mux frame lists 1.." + BinaryMuxEventBatch.MAX_CHANNELS
                + " channels, not " + channelCount);
        }
        int shared = sharedFrameLength(true, payloads, from, count);
        if (dst.remaining() < muxPrefixLength(channelCount) + shared - FrameHeader.HEADER_LENGTH) {
            throw new BufferOverflowException();
        }
        encodeMuxPrefix(dst, channels, channelCount, shared);
        BigEndian.put64(dst, baseOffset);
        putEvents(dst, payloads, from, count);
    }

    // ------------------------------------------------------------ from a run of encoded events

    /*
     * A broker that holds a batch's events as they arrived (count blobs back to back, each a u32 length then its
     * bytes: the event list of a publish frame, see PublishInPlace) writes a frame's head with these and then the run
     * itself, in one copy.
     */

    /**
     * Exact length (header included) of a shared frame whose {@code count} events take {@code eventsLength} bytes,
     * lengths included.
     *
     * @throws IllegalArgumentException if the frame would exceed {@link FrameHeader#MAX_SUPPORTED_FRAME_BYTES}
     */
    public static int sharedFrameLength(boolean withBaseOffset, int count, int eventsLength) {
        long len = (long) FrameHeader.HEADER_LENGTH + (withBaseOffset ? BASE_OFFSET_LENGTH : 0) + COUNT_LENGTH
            + eventsLength;
        if (len > FrameHeader.MAX_SUPPORTED_FRAME_BYTES || count < 0 || eventsLength < 4L * count) {
            throw new IllegalArgumentException("event batch frame of " + count + " events in " + eventsLength
                + " bytes: over " + FrameHeader.MAX_SUPPORTED_FRAME_BYTES + " bytes or inconsistent; split the batch");
        }
        return (int) len;
    }

    /**
     * Writes everything of a shared frame (flags {@code 0x0004}, or {@code 0x0024} with a base offset) up to its
     * events: header, base offset, count. The caller writes the {@code eventsLength} bytes of events after it.
     */
    public static void encodeSharedHead(ByteBuffer dst, boolean withBaseOffset, long baseOffset, int count,
                                        int eventsLength) {
        int frameLength = sharedFrameLength(withBaseOffset, count, eventsLength);
        if (dst.remaining() < frameLength - eventsLength) {
            throw new BufferOverflowException();
        }
        FrameHeader.write(dst, FrameFlags.BINARY_EVENT_BATCH_SHARED
            | (withBaseOffset ? FrameFlags.EVENT_BATCH_OFFSETS : 0), frameLength - FrameHeader.HEADER_LENGTH);
        if (withBaseOffset) {
            BigEndian.put64(dst, baseOffset);
        }
        BigEndian.put32(dst, count);
    }

    /** Exact length (header included) of a multiplexed frame whose {@code count} events take {@code eventsLength}. */
    public static int muxFrameLength(int channels, int count, int eventsLength) {
        return muxPrefixLength(channels) + sharedFrameLength(true, count, eventsLength) - FrameHeader.HEADER_LENGTH;
    }

    /**
     * Writes everything of a multiplexed frame (flags {@code 0x8024}) up to its events: prefix, base offset, count.
     * The caller writes the {@code eventsLength} bytes of events after it.
     */
    public static void encodeMuxHead(ByteBuffer dst, int[] channels, int channelCount, long baseOffset, int count,
                                     int eventsLength) {
        if (channelCount < 1 || channelCount > BinaryMuxEventBatch.MAX_CHANNELS) {
            throw new IllegalArgumentException("a mux frame lists 1.." + BinaryMuxEventBatch.MAX_CHANNELS
                + " channels, not " + channelCount);
        }
        int shared = sharedFrameLength(true, count, eventsLength);
        if (dst.remaining() < muxPrefixLength(channelCount) + shared - FrameHeader.HEADER_LENGTH - eventsLength) {
            throw new BufferOverflowException();
        }
        encodeMuxPrefix(dst, channels, channelCount, shared);
        BigEndian.put64(dst, baseOffset);
        BigEndian.put32(dst, count);
    }

    // ------------------------------------------------------------ per-subscriber 0x0002 / 0x0022

    /**
     * Writes a complete per-subscriber batch frame, flags {@code 0x0002}.
     *
     * @param subscriptionId u64
     * @throws BufferOverflowException   if {@code dst} is too small (nothing is written)
     * @throws IndexOutOfBoundsException if the range is outside the array
     */
    public static void encodeSubscriber(ByteBuffer dst, long subscriptionId, byte[][] payloads, int from,
                                        int count) {
        encode(dst, FrameFlags.BINARY_EVENT_BATCH, true, subscriptionId, false, 0, payloads, from, count);
    }

    /** {@link #encodeSubscriber(ByteBuffer, long, byte[][], int, int)} over a whole list. */
    public static void encodeSubscriber(ByteBuffer dst, long subscriptionId, List<byte[]> payloads) {
        byte[][] a = toArray(payloads);
        encodeSubscriber(dst, subscriptionId, a, 0, a.length);
    }

    /**
     * Writes a complete per-subscriber batch frame with a base offset, flags {@code 0x0022}.
     *
     * @param subscriptionId u64
     * @param baseOffset     u64 offset of {@code payloads[from]}
     * @throws BufferOverflowException   if {@code dst} is too small (nothing is written)
     * @throws IndexOutOfBoundsException if the range is outside the array
     */
    public static void encodeSubscriberWithOffset(ByteBuffer dst, long subscriptionId, long baseOffset,
                                                  byte[][] payloads, int from, int count) {
        encode(dst, FrameFlags.BINARY_EVENT_BATCH | FrameFlags.EVENT_BATCH_OFFSETS, true, subscriptionId, true,
            baseOffset, payloads, from, count);
    }

    /** {@link #encodeSubscriberWithOffset(ByteBuffer, long, long, byte[][], int, int)} over a whole list. */
    public static void encodeSubscriberWithOffset(ByteBuffer dst, long subscriptionId, long baseOffset,
                                                  List<byte[]> payloads) {
        byte[][] a = toArray(payloads);
        encodeSubscriberWithOffset(dst, subscriptionId, baseOffset, a, 0, a.length);
    }

    // ------------------------------------------------------------ implementation

    private static byte[][] toArray(List<byte[]> payloads) {
        return payloads.toArray(new byte[0][]);
    }

    private static int frameLength(int idLength, boolean withBaseOffset, byte[][] payloads, int from, int count) {
        Objects.checkFromIndexSize(from, count, payloads.length);
        long len = (long) FrameHeader.HEADER_LENGTH + idLength + (withBaseOffset ? BASE_OFFSET_LENGTH : 0) + COUNT_LENGTH;
        for (int i = from, end = from + count; i < end; i++) {
            len += PAYLOAD_LENGTH_PREFIX + (long) payloads[i].length;
            if (len > FrameHeader.MAX_SUPPORTED_FRAME_BYTES) {
                throw new IllegalArgumentException("event batch frame exceeds "
                    + FrameHeader.MAX_SUPPORTED_FRAME_BYTES + " bytes; split the batch");
            }
        }
        return (int) len;
    }

    static void encode(ByteBuffer dst, int flags, boolean withId, long subscriptionId, boolean withBaseOffset,
                       long baseOffset, byte[][] payloads, int from, int count) {
        int frameLength = frameLength(withId ? SUBSCRIPTION_ID_LENGTH : 0, withBaseOffset, payloads, from, count);
        if (dst.remaining() < frameLength) {
            throw new BufferOverflowException();
        }
        FrameHeader.write(dst, flags, frameLength - FrameHeader.HEADER_LENGTH);
        if (withId) {
            BigEndian.put64(dst, subscriptionId);
        }
        if (withBaseOffset) {
            BigEndian.put64(dst, baseOffset);
        }
        putEvents(dst, payloads, from, count);
    }

    /** The events part every batch layout ends with: the count, then each payload behind its length. */
    private static void putEvents(ByteBuffer dst, byte[][] payloads, int from, int count) {
        BigEndian.put32(dst, count);
        for (int i = from, end = from + count; i < end; i++) {
            byte[] p = payloads[i];
            BigEndian.put32(dst, p.length);
            dst.put(p);
        }
    }
}
