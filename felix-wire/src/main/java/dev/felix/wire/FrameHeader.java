package dev.felix.wire;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;

/**
 * The 12-byte header in front of every Felix frame, and its descriptor: the one place that knows the
 * header's offsets, sizes and validation order.
 *
 * <pre>
 *   byte   0         1         2         3
 *        +---------+---------+---------+---------+
 *    0   |  0x46 F |  0x4C L |  0x58 X |  0x31 1 |  magic   u32  {@link #MAGIC} "FLX1"
 *        +---------+---------+---------+---------+
 *    4   |  version = 0x0001 |   flags (u16)     |  version u16  {@link #VERSION}; flags see {@link FrameFlags}
 *        +---------+---------+---------+---------+
 *    8   |        length (u32, payload bytes)    |  length  u32  bytes of payload that follow
 *        +---------+---------+---------+---------+
 *   12   |  payload ... (length bytes)           |
 *        +---------+---------+---------+--
 * </pre>
 *
 * All integers are big-endian and unsigned. Frames follow one another on a QUIC stream with no
 * padding and no other delimiter. Example, the {@code ok} frame:
 * {@code 464c5831 0001 0000 0000000d} + {@code {"type":"ok"}}.
 *
 * <p><b>Validation order</b> (what {@link #read} and {@link #peek} check, all before a single byte is
 * allocated for the payload): 1. magic ({@link WireError#BAD_MAGIC}), 2. version
 * ({@link WireError#UNSUPPORTED_VERSION}), 3. flag bits outside {@link FrameFlags#KNOWN}
 * ({@link WireError#UNKNOWN_FLAGS}), 4. {@code length <= maxFrameBytes}
 * ({@link WireError#FRAME_TOO_LARGE}). A declared length of {@code 2^32-1} is therefore rejected
 * from the 12 header bytes alone.
 *
 * <p><b>Stricter than upstream:</b> a stream that ends inside a header is an error
 * ({@link WireError#TRUNCATED}), not a clean end of stream; see {@link WireCodec#checkEndOfStream}.
 *
 * <p>The record holds an already validated header: {@code flags} is a u16 and {@code length} the
 * payload length. Stateless static methods; thread-safe.
 *
 * @param flags  the u16 flags field (see {@link FrameFlags})
 * @param length the payload length in bytes
 */
public record FrameHeader(int flags, int length) {
    /** {@code "FLX1"} as a big-endian u32. */
    public static final int MAGIC = 0x464C5831;
    /** The only wire version. */
    public static final int VERSION = 1;
    /** Header size in bytes. */
    public static final int HEADER_LENGTH = 12;
    /** Offset of the u32 magic. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the u16 version. */
    public static final int VERSION_OFFSET = 4;
    /** Offset of the u16 flags. */
    public static final int FLAGS_OFFSET = 6;
    /** Offset of the u32 payload length. */
    public static final int LENGTH_OFFSET = 8;
    /** Default bound on the payload length, as upstream ({@code FELIX_MAX_FRAME_BYTES}): 16 MiB. */
    public static final long DEFAULT_MAX_FRAME_BYTES = 16L * 1024 * 1024;
    /**
     * Largest {@code maxFrameBytes} a reader accepts: a payload must fit a Java array together with its
     * header.
     */
    public static final long MAX_SUPPORTED_FRAME_BYTES = Integer.MAX_VALUE - 64;

    /**
     * @throws IllegalArgumentException if {@code flags} is not a u16 or {@code length} is negative or too
     *                                  large for the header and payload to fit one Java array
     */
    public FrameHeader {
        if ((flags & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("flags must be a u16: " + flags);
        }
        if (length < 0 || length > MAX_SUPPORTED_FRAME_BYTES) {
            throw new IllegalArgumentException("payload length out of range: " + length);
        }
    }

    /** Header plus payload length. */
    public int frameLength() {
        return HEADER_LENGTH + length;
    }

    /**
     * Reads and validates a header at {@code src.position()} and advances the position by 12 on
     * success. On failure the position is unchanged.
     *
     * @param src           the bytes; must hold at least 12 readable bytes
     * @param maxFrameBytes the largest acceptable payload length, {@code 0..}{@link #MAX_SUPPORTED_FRAME_BYTES}
     * @throws WireException {@link WireError#TRUNCATED} if fewer than 12 bytes remain; otherwise the
     *                       first failing check of the validation order above
     * @throws IllegalArgumentException if {@code maxFrameBytes} is out of range (a configuration bug)
     */
    public static FrameHeader read(ByteBuffer src, long maxFrameBytes) throws WireException {
        if (src.remaining() < HEADER_LENGTH) {
            throw new WireException(WireError.TRUNCATED,
                "frame header: need " + HEADER_LENGTH + " bytes, have " + src.remaining());
        }
        FrameHeader h = validate(src, src.position(), maxFrameBytes);
        src.position(src.position() + HEADER_LENGTH);
        return h;
    }

    /**
     * Validates the header at {@code src.position()} without consuming it; returns {@code null} when
     * fewer than 12 bytes are readable (wait for more). This is the call a streaming decoder makes:
     * the header is judged as soon as its 12 bytes exist, before the payload has arrived, so an
     * oversized or garbage frame is refused without buffering it.
     *
     * @throws WireException the first failing check of the validation order above
     */
    public static FrameHeader peek(ByteBuffer src, long maxFrameBytes) throws WireException {
        if (src.remaining() < HEADER_LENGTH) {
            checkMax(maxFrameBytes);
            return null;
        }
        return validate(src, src.position(), maxFrameBytes);
    }

    /**
     * What {@link #declaredPayloadLength} returns for a well-formed header that declares more than the
     * maximum (the transport's frame decoder uses the same value to mark such a header "too large").
     */
    public static final long DECLARED_TOO_LARGE = -2;

    /**
     * For a streaming frame decoder: the payload length the 12-byte header at {@code header.position()}
     * declares, after every check of {@link #peek}; or, after appending what is wrong to {@code problem},
     * {@link #DECLARED_TOO_LARGE} for a header declaring more than {@code maxFrameBytes} (the message names
     * {@code max_frame_bytes} and both sizes) and -1 for anything else. Both the broker's and the client's
     * decoders judge headers here, so they refuse exactly the same frames with the same words.
     */
    public static long declaredPayloadLength(ByteBuffer header, long maxFrameBytes, StringBuilder problem) {
        try {
            return validate(header, header.position(), maxFrameBytes).length();
        } catch (WireException e) {
            if (e.error() == WireError.FRAME_TOO_LARGE) {
                long declared = Integer.toUnsignedLong(BigEndian.i32(header, header.position() + LENGTH_OFFSET));
                problem.append("a frame of ").append(declared).append(" bytes is larger than max_frame_bytes (")
                    .append(maxFrameBytes).append(" bytes)");
                return DECLARED_TOO_LARGE;
            }
            problem.append(e.getMessage());
            return -1;
        }
    }

    private static FrameHeader validate(ByteBuffer b, int at, long maxFrameBytes) throws WireException {
        checkMax(maxFrameBytes);
        int magic = BigEndian.i32(b, at + MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw new WireException(WireError.BAD_MAGIC,
                String.format("frame header: bad magic 0x%08X, expected 0x%08X (FLX1)", magic, MAGIC));
        }
        int version = BigEndian.u16(b, at + VERSION_OFFSET);
        if (version != VERSION) {
            throw new WireException(WireError.UNSUPPORTED_VERSION,
                "frame header: unsupported version " + version + ", expected " + VERSION);
        }
        int flags = BigEndian.u16(b, at + FLAGS_OFFSET);
        if (!FrameFlags.isKnown(flags)) {
            throw new WireException(WireError.UNKNOWN_FLAGS,
                "frame header: unknown flag bits " + FrameFlags.describe(flags & ~FrameFlags.KNOWN)
                    + " in " + FrameFlags.describe(flags));
        }
        long length = BigEndian.u32(b, at + LENGTH_OFFSET);
        if (length > maxFrameBytes) {
            throw new WireException(WireError.FRAME_TOO_LARGE,
                "frame header: payload length " + length + " exceeds the maximum of " + maxFrameBytes);
        }
        return new FrameHeader(flags, (int) length);
    }

    private static void checkMax(long maxFrameBytes) {
        if (maxFrameBytes < 0 || maxFrameBytes > MAX_SUPPORTED_FRAME_BYTES) {
            throw new IllegalArgumentException("maxFrameBytes must be in 0.." + MAX_SUPPORTED_FRAME_BYTES
                + ", got " + maxFrameBytes);
        }
    }

    /**
     * Writes this header (12 bytes) at {@code dst.position()} and advances it, big-endian whatever
     * {@code dst.order()} is.
     *
     * @throws BufferOverflowException if fewer than 12 bytes remain
     */
    public void write(ByteBuffer dst) {
        write(dst, flags, length);
    }

    /**
     * Writes a header for a payload of {@code length} bytes with {@code flags}.
     *
     * @throws IllegalArgumentException if {@code flags} is not a u16 or {@code length} is negative
     * @throws BufferOverflowException  if fewer than 12 bytes remain
     */
    public static void write(ByteBuffer dst, int flags, int length) {
        if ((flags & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("flags must be a u16: " + flags);
        }
        if (length < 0) {
            throw new IllegalArgumentException("negative payload length: " + length);
        }
        if (dst.remaining() < HEADER_LENGTH) {
            throw new BufferOverflowException();
        }
        BigEndian.put32(dst, MAGIC);
        BigEndian.put16(dst, VERSION);
        BigEndian.put16(dst, flags);
        BigEndian.put32(dst, length);
    }

    /** The 12 header bytes. */
    public byte[] toBytes() {
        byte[] out = new byte[HEADER_LENGTH];
        write(ByteBuffer.wrap(out));
        return out;
    }
}
