package dev.felix.wire;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;

/**
 * Start here: the entry points of the Felix wire v1 codec (frames, JSON messages, binary payloads).
 *
 * <h2>Reading a stream</h2>
 * <pre>{@code
 * // as soon as 12 bytes are buffered: judge the header before the payload arrives
 * FrameHeader h = FrameHeader.peek(buf, maxFrameBytes);      // null: need more bytes
 * if (h != null && buf.remaining() >= h.frameLength()) {
 *     Frame f = WireCodec.readFrame(buf, maxFrameBytes);      // consumes one frame
 *     WirePayload p = WireCodec.decode(f);                    // Message or BinaryPayload
 * }
 * // at end of stream:
 * WireCodec.checkEndOfStream(buf);                            // leftover bytes are TRUNCATED
 * }</pre>
 *
 * Every decoding method throws {@link WireException} (and nothing else) for any malformed input;
 * the {@link WireError} says what was wrong. A broker answers or ends <em>only the stream</em> that
 * carried it.
 *
 * <h2>Writing</h2>
 * {@link #encodeFrame(WirePayload)} returns the complete frame (header + payload) of a message or a
 * binary payload. For zero-copy writes of binary payloads use {@link #frameLength(BinaryPayload)} and
 * {@link #encodeFrame(BinaryPayload, ByteBuffer)}; for encode-once event fanout use
 * {@link EventBatchEncoder}.
 *
 * <h2>Contracts</h2>
 * Stateless and thread-safe. Decoders read {@code remaining()} bytes from a payload buffer's
 * position using absolute reads and never change its position, limit or byte order (except
 * {@link #readFrame}, which consumes a frame); they copy every byte they keep, so the buffer may be
 * reused or released after the call. Encoders never keep references to their arguments.
 */
public final class WireCodec {
    /** Default bound on frame payloads, as upstream: 16 MiB. */
    public static final long DEFAULT_MAX_FRAME_BYTES = FrameHeader.DEFAULT_MAX_FRAME_BYTES;

    private WireCodec() {
    }

    // ================================================================== frames

    /** Reads and validates a header; see {@link FrameHeader#read(ByteBuffer, long)}. */
    public static FrameHeader readHeader(ByteBuffer src, long maxFrameBytes) throws WireException {
        return FrameHeader.read(src, maxFrameBytes);
    }

    /**
     * Reads one complete frame at {@code src.position()} and advances past it. The returned payload
     * is a slice sharing {@code src}'s memory, not a copy (see {@link Frame}); it is read-only if
     * {@code src} is. On failure the position is unchanged.
     *
     * @throws WireException header failures (see {@link FrameHeader}), or {@link WireError#TRUNCATED}
     *                       if the header is incomplete or fewer than {@code length} payload bytes follow
     */
    public static Frame readFrame(ByteBuffer src, long maxFrameBytes) throws WireException {
        int start = src.position();
        FrameHeader h = FrameHeader.read(src, maxFrameBytes);
        if (src.remaining() < h.length()) {
            int have = src.remaining();
            src.position(start);
            throw new WireException(WireError.TRUNCATED,
                "frame payload: header declares " + h.length() + " bytes, only " + have + " follow");
        }
        ByteBuffer payload = src.slice(src.position(), h.length());
        src.position(src.position() + h.length());
        return new Frame(h.flags(), payload);
    }

    /**
     * Call when a stream ends: any unread bytes mean the stream ended inside a frame. Stricter than
     * upstream, which treats a partial header as a clean end of stream.
     *
     * @throws WireException {@link WireError#TRUNCATED} if {@code unread} has bytes remaining
     */
    public static void checkEndOfStream(ByteBuffer unread) throws WireException {
        if (unread.hasRemaining()) {
            throw new WireException(WireError.TRUNCATED, "stream ended inside a frame with "
                + unread.remaining() + " unread bytes"
                + (unread.remaining() < FrameHeader.HEADER_LENGTH ? " (partial header)" : ""));
        }
    }

    /** A complete frame: header with {@code flags} followed by {@code payload}. */
    public static byte[] frame(int flags, byte[] payload) {
        byte[] out = new byte[FrameHeader.HEADER_LENGTH + payload.length];
        FrameHeader.write(ByteBuffer.wrap(out), flags, payload.length);
        System.arraycopy(payload, 0, out, FrameHeader.HEADER_LENGTH, payload.length);
        return out;
    }

    /** Decodes a frame's payload according to its flags: a {@link Message} or a {@link BinaryPayload}. */
    public static WirePayload decode(Frame frame) throws WireException {
        return decodePayload(frame.flags(), frame.payload());
    }

    /**
     * Decodes a payload according to the frame flags: {@code 0} is JSON, the other valid
     * combinations are binary layouts.
     *
     * @throws WireException {@link WireError#UNKNOWN_FLAGS} / {@link WireError#BAD_FLAG_COMBINATION} for
     *                       bad flags, otherwise the decoder's failure
     */
    public static WirePayload decodePayload(int flags, ByteBuffer payload) throws WireException {
        return flags == 0 ? decodeJson(payload) : decodeBinary(flags, payload);
    }

    /**
     * Encodes the complete frame of a message (flags 0) or a binary payload (its flags).
     *
     * @throws IllegalArgumentException if a string holds an unpaired surrogate, a binary name exceeds
     *                                  65535 bytes, or the frame would exceed 2 GiB
     */
    public static byte[] encodeFrame(WirePayload payload) {
        if (payload instanceof Message m) {
            return JsonCodec.encode(m, true);
        }
        BinaryPayload b = (BinaryPayload) payload;
        byte[] out = new byte[BinaryCodec.frameLength(b)];
        BinaryCodec.encodeFrame(b, ByteBuffer.wrap(out));
        return out;
    }

    // ================================================================== JSON

    /**
     * The JSON payload of {@code m}: compact, {@code type} first, keys in wire order, optional keys
     * omitted when absent (except {@code cache_put.ttl_ms} and {@code cache_value.value}, written as
     * {@code null}), binary as canonical standard base64.
     *
     * @throws IllegalArgumentException if a string holds an unpaired surrogate
     */
    public static byte[] encodeJson(Message m) {
        return JsonCodec.encode(m, false);
    }

    /**
     * Decodes a JSON message payload (the bytes after a header with flags 0).
     *
     * @throws WireException {@link WireError#BAD_UTF8}, {@link WireError#MALFORMED_JSON},
     *                       {@link WireError#UNKNOWN_TYPE}, {@link WireError#MISSING_FIELD},
     *                       {@link WireError#DUPLICATE_FIELD}, {@link WireError#BAD_FIELD} or
     *                       {@link WireError#BAD_BASE64}, with the field path in the message
     */
    public static Message decodeJson(ByteBuffer payload) throws WireException {
        return JsonCodec.decode(payload);
    }

    /** {@link #decodeJson(ByteBuffer)} over a whole array. */
    public static Message decodeJson(byte[] payload) throws WireException {
        return JsonCodec.decode(payload, 0, payload.length);
    }

    // ================================================================== binary

    /**
     * Decodes a binary payload selected by {@code flags} (any valid non-zero combination).
     *
     * @throws WireException {@link WireError#UNKNOWN_FLAGS} / {@link WireError#BAD_FLAG_COMBINATION}
     *                       for flags that select no binary layout, otherwise the layout's failure
     */
    public static BinaryPayload decodeBinary(int flags, ByteBuffer payload) throws WireException {
        return BinaryCodec.decode(flags, payload);
    }

    /** Decodes a {@code 0x0001} payload. See {@link BinaryPublishBatch}. */
    public static BinaryPublishBatch decodePublishBatch(ByteBuffer payload) throws WireException {
        return BinaryCodec.decodePublishBatch(payload);
    }

    /**
     * Decodes only the 9-byte prefix of a {@code 0x0009} payload, so that a broker can still answer
     * (with a binary ack error "malformed publish batch") when the body then fails to decode.
     *
     * @throws WireException {@link WireError#TRUNCATED} with fewer than 9 bytes,
     *                       {@link WireError#BAD_ACK_MODE} for a mode other than 1 or 2
     */
    public static AckedPublishPrefix decodeAckedPublishPrefix(ByteBuffer payload) throws WireException {
        return BinaryCodec.decodeAckedPublishPrefix(payload);
    }

    /** Decodes a whole {@code 0x0009} payload. See {@link BinaryAckedPublishBatch}. */
    public static BinaryAckedPublishBatch decodeAckedPublishBatch(ByteBuffer payload) throws WireException {
        return BinaryCodec.decodeAckedPublishBatch(payload);
    }

    /**
     * Decodes a whole {@code 0x0029} payload (extension). Its first 9 bytes are the prefix
     * {@link #decodeAckedPublishPrefix} reads, so a broker can answer a body it cannot read.
     * See {@link BinaryRoutedPublishBatch}.
     */
    public static BinaryRoutedPublishBatch decodeRoutedPublishBatch(ByteBuffer payload) throws WireException {
        return BinaryCodec.decodeRoutedPublishBatch(payload, null);
    }

    /**
     * {@link #decodeRoutedPublishBatch(ByteBuffer)}, taking the tenant, namespace and stream from {@code names}
     * when their bytes were read before on the same stream (no new strings per batch), and keeping them there.
     */
    public static BinaryRoutedPublishBatch decodeRoutedPublishBatch(ByteBuffer payload, NameCache names)
            throws WireException {
        return BinaryCodec.decodeRoutedPublishBatch(payload, names);
    }

    /**
     * Decodes a {@code 0x0001} payload ({@code acked} false) or a whole {@code 0x0009} payload without copying its
     * payloads: names from {@code names} as {@link #decodeRoutedPublishBatch(ByteBuffer, NameCache)} takes them, and
     * where the events lie. Refuses exactly what {@link #decodePublishBatch} and {@link #decodeAckedPublishBatch}
     * refuse.
     */
    public static PublishInPlace decodePublishInPlace(ByteBuffer payload, boolean acked, NameCache names)
            throws WireException {
        return BinaryCodec.decodePublishInPlace(payload, acked, names);
    }

    /**
     * Decodes a whole {@code 0x0029} payload without copying its payloads; refuses exactly what
     * {@link #decodeRoutedPublishBatch(ByteBuffer, NameCache)} refuses.
     */
    public static PublishInPlace decodeRoutedPublishInPlace(ByteBuffer payload, NameCache names)
            throws WireException {
        return BinaryCodec.decodeRoutedPublishInPlace(payload, names);
    }

        /** Decodes a {@code 0x0026} payload (extension). See {@link BinaryWatchChanges}. */
    public static BinaryWatchChanges decodeWatchChanges(ByteBuffer payload) throws WireException {
        return BinaryCodec.decodeWatchChanges(payload);
    }

    /** Decodes a {@code 0x0030} payload (extension). See {@link BinaryPublishResult}. */
    public static BinaryPublishResult decodePublishResult(ByteBuffer payload) throws WireException {
        return BinaryCodec.decodePublishResult(payload);
    }

    /** Decodes a {@code 0x0010} payload. See {@link BinaryPublishAck}. */
    public static BinaryPublishAck decodePublishAck(ByteBuffer payload) throws WireException {
        return BinaryCodec.decodePublishAck(payload);
    }

    /**
     * Decodes a per-subscriber event batch; {@code flags} must be {@code 0x0002} or {@code 0x0022}.
     * See {@link BinaryEventBatch}.
     */
    public static BinaryEventBatch decodeEventBatch(int flags, ByteBuffer payload) throws WireException {
        return BinaryCodec.decodeEventBatch(flags, payload);
    }

    /**
     * Decodes a shared event batch; {@code flags} must be {@code 0x0004} or {@code 0x0024}.
     * See {@link BinarySharedEventBatch}.
     */
    public static BinarySharedEventBatch decodeSharedEventBatch(int flags, ByteBuffer payload)
        throws WireException {
        return BinaryCodec.decodeSharedEventBatch(flags, payload);
    }

    /** Decodes a multiplexed event batch payload (flags {@code 0x8024}). */
    public static BinaryMuxEventBatch decodeMuxEventBatch(ByteBuffer payload) throws WireException {
        return BinaryCodec.decodeMuxEventBatch(payload);
    }

    /**
     * Exact frame length (header included) of a binary payload.
     *
     * @throws IllegalArgumentException as {@link #encodeFrame(WirePayload)}
     */
    public static int frameLength(BinaryPayload payload) {
        return BinaryCodec.frameLength(payload);
    }

    /**
     * Writes the complete frame of a binary payload at {@code dst.position()} and advances it;
     * big-endian whatever {@code dst.order()} is. Nothing is written if it does not fit.
     *
     * @throws BufferOverflowException  if {@code dst} has fewer than {@link #frameLength} bytes remaining
     * @throws IllegalArgumentException as {@link #encodeFrame(WirePayload)}
     */
    public static void encodeFrame(BinaryPayload payload, ByteBuffer dst) {
        BinaryCodec.encodeFrame(payload, dst);
    }
}
