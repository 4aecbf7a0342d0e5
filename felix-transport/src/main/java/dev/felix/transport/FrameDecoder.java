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
 * removed); each emitted frame is a retained slice of it (a large frame gathered in parts: a buffer of its own), which
 * the next handler owns and must release.
 *
 * <p>The header is validated by a {@link HeaderValidator} <em>before</em> any payload is buffered, so
 * an oversized or malformed declaration costs nothing; each header is validated exactly once, when its
 * last byte arrives, however the stream is cut into reads. Emits one retained {@link ByteBuf} per frame
 * (header included, reader index at the header); the next handler owns and must release it. On a bad
 * header it emits a {@link BadHeader} and discards the rest of the stream, since a stream that lost
 * framing cannot be resynchronised.
 *
 * <p><b>Large frames.</b> While a frame larger than {@link #OWN_BUFFER_ABOVE_BYTES} is incomplete, its bytes are kept
 * as they arrived (the received buffers, as parts of a composite cumulation): memory follows the bytes received,
 * never the length a header declares. Once it is whole it is copied once into a buffer of exactly its size from
 * {@link DirectBuffers#exact} (so from the pool only up to its limit), and emitted as that buffer. Smaller frames are
 * gathered as {@code ByteToMessageDecoder}'s merge does, except that a cumulation that needs more room is replaced by
 * one of the size it needs instead of grown by doubling. So no buffer this decoder asks the pool for exceeds
 * {@link DirectBuffers#POOLED_MAX_BYTES} (Netty's stream reads at most 64 KiB at a time).
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

    /**
     * Gathers {@code in} after {@code cumulation} (both released here, or kept in what is returned). While a large
     * frame is incomplete its bytes are kept as they arrived, as parts of a composite: memory follows the bytes
     * received (bounded by the stream's flow control), never the length a header declares, and nothing is copied
     * until the frame is whole ({@link #decode}). Otherwise the unread bytes and the read are merged, in place when the
     * cumulation has room without growing, else into a fresh pooled buffer of their size: a partial frame of at most
     * 64 KiB and one read, so never more than the pool's limit (Netty's merge would grow the cumulation in place by
     * doubling, read bytes included, for up to 16 reads before it discards them).
     */
    private ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
        if (failed || cumulation == in || !cumulation.isReadable()) {
            return MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        if (pendingLength >= 0 && headerLength + pendingLength > OWN_BUFFER_ABOVE_BYTES) {
            return COMPOSITE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        int required = in.readableBytes();
        if (!(cumulation instanceof CompositeByteBuf) && cumulation.refCnt() == 1 && !cumulation.isReadOnly()
                && required <= cumulation.maxFastWritableBytes()) {
            return MERGE_CUMULATOR.cumulate(alloc, cumulation, in); // fits as it is: written in place
        }
        ByteBuf merged = null;
        try {
            merged = alloc.directBuffer(cumulation.readableBytes() + required);
            merged.writeBytes(cumulation, cumulation.readerIndex(), cumulation.readableBytes()).writeBytes(in);
        } catch (RuntimeException | Error e) {
            if (merged != null) {
                merged.release();
            }
            in.release(); // the cumulation stays the decoder's
            throw e;
        }
        cumulation.release();
        in.release();
        return merged;
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
            if (length + headerLength > OWN_BUFFER_ABOVE_BYTES && in instanceof CompositeByteBuf parts) {
                // A large frame gathered in parts: copied once into a buffer of its own (pooled only up to the
                // pool's limit), and the parts it used go back at once.
                ByteBuf frame = DirectBuffers.exact(ctx.alloc(), (int) frameLength);
                try {
                    in.readBytes(frame, (int) frameLength);
                } catch (RuntimeException e) {
                    frame.release();
                    throw e;
                }
                out.add(frame);
                if (parts.refCnt() == 1) { // no slice of it is out: its indexes may move
                    parts.discardReadComponents();
                }
            } else {
                out.add(in.readRetainedSlice((int) frameLength));
            }
            pendingLength = -1;
        }
    }

    /** Bytes of a partial frame left when the stream ended (0 if it ended on a frame boundary). */
    public int pendingBytes() {
        return actualReadableBytes();
    }
}
