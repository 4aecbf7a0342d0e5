package dev.felix.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Splits a QUIC stream's bytes into whole frames of a protocol whose frames start with a
 * fixed-size header that declares the payload length.
 *
 * <p><b>Threads and buffers.</b> Not sharable: one instance per stream pipeline, called only on that stream's
 * event loop. Its cumulation buffer is its own (released by {@code ByteToMessageDecoder} when the handler is
 * removed); each emitted frame is a retained slice the next handler owns and must release.
 *
 * <p>The header is validated by a {@link HeaderValidator} <em>before</em> any payload is buffered, so
 * an oversized or malformed declaration costs nothing; each header is validated exactly once, when its
 * last byte arrives, however the stream is cut into reads. Emits one retained {@link ByteBuf} per frame
 * (header included, reader index at the header); the next handler owns and must release it. On a bad
 * header it emits a {@link BadHeader} and discards the rest of the stream, since a stream that lost
 * framing cannot be resynchronised.
 *
 * <p><b>Large frames.</b> Bytes are gathered as {@code ByteToMessageDecoder} does (into the pooled cumulation,
 * which grows by doubling) except while a frame larger than {@link #OWN_BUFFER_ABOVE_BYTES} is incomplete: its bytes
 * go into one buffer of exactly its size, from {@link DirectBuffers#exact} (so from the pool only up to its limit),
 * which is copied into once. A cumulation then never grows past that limit, however large the frames: it holds a
 * partial frame of at most 64 KiB and one read (Netty's stream reads at most 64 KiB at a time). Bytes of the next
 * frames that arrive in the same read as its end follow it as a second part of a composite cumulation (the frame
 * itself is then a slice of its own buffer), and are copied out of it into a pooled buffer at the next read.
 */
public final class FrameDecoder extends ByteToMessageDecoder {

    /** Validates a frame header and returns the payload length it declares. */
    @FunctionalInterface
    public interface HeaderValidator {
        /**
         * @param header a view of exactly {@code headerLength} bytes (from its position)
         * @return the declared payload length; or, after filling {@code problem}, {@link #TOO_LARGE} when
         *         the declared length is over the limit and any other negative number for other problems
         */
        long payloadLength(java.nio.ByteBuffer header, StringBuilder problem);
    }

    /**
     * What a {@link HeaderValidator} returns for a well-formed header declaring more than the limit (the value
     * Felix's header check, {@code FrameHeader.declaredPayloadLength}, returns for that case).
     */
    public static final long TOO_LARGE = -2;

    /**
     * A header that failed validation; carries the reason, and whether it failed only because it declared
     * more than the limit ({@code tooLarge}). The stream is unusable afterwards.
     */
    public record BadHeader(String reason, boolean tooLarge) {
    }

    /** Frames larger than this get a buffer of their own while their bytes arrive (half the pool's limit). */
    static final int OWN_BUFFER_ABOVE_BYTES = DirectBuffers.POOLED_MAX_BYTES / 2;

    private final int headerLength;
    private final HeaderValidator validator;
    private boolean failed;
    /** Payload length of the frame whose header was validated, until the whole frame is here; -1 between frames. */
    private long pendingLength = -1;
    /** Each header is copied here to be validated: a slice of the buffer per frame was an allocation per frame. */
    private final byte[] header;
    private final java.nio.ByteBuffer headerView;
    /** Filled by the validator only for a bad header (the stream ends then), so one per decoder is enough. */
    private final StringBuilder problem = new StringBuilder();
    /** The buffer of exactly the pending large frame's size that its bytes go into (null when there is none). */
    private ByteBuf largeFrame;

    public FrameDecoder(int headerLength, HeaderValidator validator) {
        if (headerLength <= 0) {
            throw new IllegalArgumentException("headerLength must be positive: " + headerLength);
        }
        this.headerLength = headerLength;
        this.validator = validator;
        this.header = new byte[headerLength];
        this.headerView = java.nio.ByteBuffer.wrap(header);
        setCumulator(this::cumulate);
    }

    /** Gathers {@code in} after {@code cumulation}: as Netty's merge does, but a large frame into its own buffer. */
    private ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
        long frameLength = pendingLength < 0 ? -1 : headerLength + pendingLength;
        if (failed || cumulation == in || !cumulation.isReadable()) {
            return MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        if (frameLength <= OWN_BUFFER_ABOVE_BYTES) {
            if (cumulation instanceof CompositeByteBuf) {
                // What followed a large frame: copied out, for Netty's merge would grow the composite by doubling
                // its whole capacity, the large frame's included.
                ByteBuf merged = alloc.directBuffer(cumulation.readableBytes() + in.readableBytes());
                try {
                    return merged.writeBytes(cumulation).writeBytes(in);
                } finally {
                    cumulation.release();
                    in.release();
                }
            }
            return MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        // A large frame is pending. Its header (and any payload so far) is all the cumulation holds unread: the
        // frames before it were emitted, and it is not whole yet.
        boolean fresh = cumulation != largeFrame;
        ByteBuf own = fresh ? DirectBuffers.exact(alloc, (int) frameLength) : cumulation;
        ByteBuf result;
        try {
            if (fresh) {
                own.writeBytes(cumulation, cumulation.readerIndex(), cumulation.readableBytes());
            }
            int take = Math.min(own.writableBytes(), in.readableBytes());
            own.writeBytes(in, in.readerIndex(), take);
            in.skipBytes(take);
            // What the read carries past the frame's end goes after it, uncopied.
            result = in.isReadable() ? alloc.compositeDirectBuffer(2).addComponents(true, own, in.retain()) : own;
        } catch (RuntimeException | Error e) {
            if (fresh) {
                own.release();
            }
            throw e;
        } finally {
            in.release();
        }
        if (fresh) {
            cumulation.release();
        }
        largeFrame = result == own ? own : null;
        return result;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (true) {
            long length = pendingLength;
            if (length < 0) {
                if (in.readableBytes() < headerLength) {
                    return;
                }
                // Each header is validated once, when it is whole, however the frame's bytes arrive.
                in.getBytes(in.readerIndex(), header);
                headerView.clear();
                problem.setLength(0);
                length = validator.payloadLength(headerView, problem);
                if (length < 0) {
                    failed = true;
                    in.skipBytes(in.readableBytes());
                    out.add(new BadHeader(problem.toString(), length == TOO_LARGE));
                    return;
                }
                pendingLength = length;
            }
            long frameLength = headerLength + length;
            if (in.readableBytes() < frameLength) {
                return; // wait for the rest; the length was bounded by the validator
            }
            out.add(in.readRetainedSlice((int) frameLength));
            pendingLength = -1;
            largeFrame = null;
        }
    }

    /** Bytes of a partial frame left when the stream ended (0 if it ended on a frame boundary). */
    public int pendingBytes() {
        return actualReadableBytes();
    }
}
