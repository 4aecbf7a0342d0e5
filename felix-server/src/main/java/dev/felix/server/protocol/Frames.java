package dev.felix.server.protocol;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.stream.EventBatch;
import dev.felix.transport.FrameBatch;
import dev.felix.transport.FrameDecoder;
import dev.felix.wire.Capabilities;
import dev.felix.wire.EventBatchEncoder;
import dev.felix.wire.FrameHeader;
import dev.felix.wire.Message;
import dev.felix.wire.WireCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Wire encoding helpers shared by the broker's handlers. Stateless. */
final class Frames {
    private Frames() {
    }

    /** Encoding slot of an event batch's shared frame without offsets (flags 0x0004). */
    static final int SLOT_PLAIN = 0;
    /** Encoding slot of an event batch's shared frame with its base offset (flags 0x0024). */
    static final int SLOT_OFFSETS = 1;

    /**
     * A {@link FrameDecoder} for Felix frames bounded by {@code maxFrameBytes} (the {@code max_frame_bytes}
     * setting): a header declaring more is a {@link FrameDecoder.BadHeader} marked {@code tooLarge}, whose
     * reason names the setting and its value.
     */
    static FrameDecoder decoder(long maxFrameBytes) {
        return new FrameDecoder(FrameHeader.HEADER_LENGTH,
                (header, problem) -> FrameHeader.declaredPayloadLength(header, maxFrameBytes, problem));
    }

    /**
     * The error a client gets for a frame header the decoder refused: {@code too_large} for one over
     * {@code max_frame_bytes} (then logged at WARN with the peer: the stream ends, so once per stream),
     * {@code bad_request} for anything else.
     */
    static FelixError badHeader(FrameDecoder.BadHeader bad, io.netty.channel.Channel stream) {
        if (!bad.tooLarge()) {
            return FelixError.of(ErrorCode.BAD_REQUEST, "bad frame: " + bad.reason());
        }
        Object peer = stream.parent() instanceof io.netty.handler.codec.quic.QuicChannel q
                ? q.remoteSocketAddress() : stream.remoteAddress();
        Object id = stream instanceof io.netty.handler.codec.quic.QuicStreamChannel q ? q.streamId() : stream.id();
        LOG.warn("refused a frame from {} on stream {}: {}", peer, id, bad.reason());
        return FelixError.of(ErrorCode.TOO_LARGE, bad.reason() + ": send smaller messages, or raise max_frame_bytes"
                + " on the broker");
    }

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Frames.class);

    /** The frame of a JSON message, as a buffer ready to write. */
    static ByteBuf json(Message message) {
        return Unpooled.wrappedBuffer(WireCodec.encodeFrame(message));
    }

    /**
     * Payload bytes, with their four-byte length prefixes, that one delivered event frame carries at most; only an
     * event larger than this goes alone in a larger frame. A bigger batch (publishes merge up to
     * {@code max_batch_bytes}, a single publish batch can be larger, a log read returns up to 4 MiB) is delivered as
     * several frames of consecutive events. So the buffer a delivery is encoded or copied into, here and in the
     * client's decoder, stays one that Netty's pooled allocator serves from its chunks: it serves one above 1 MiB
     * from a dedicated buffer that the JDK zero-fills first, which took a fifth of the broker's CPU at 64 KiB
     * payloads, fanout 10 (issue 12). Consecutive frames are what a client receives for consecutive batches
     * anyway: each carries its own base offset, or, without offsets, simply the next events in order.
     */
    static final int FRAME_SPLIT_BYTES = 64 << 10;

    /**
     * The shared event frames of {@code batch} ({@link #FRAME_SPLIT_BYTES} each at most, usually one), encoded once
     * per batch and variant whatever the number of subscribers. The arrays are shared: wrap them, never write them.
     */
    static byte[][] events(EventBatch batch, boolean withOffsets) {
        return batch.encoded(withOffsets ? SLOT_OFFSETS : SLOT_PLAIN, b -> encodeSplit(b, withOffsets));
    }

    /**
     * Adds the multiplexed frames of {@code batch} for {@code channels[0..count)} to {@code out} (one unless the
     * batch is over {@link #FRAME_SPLIT_BYTES}).
     *
     * <p>A live batch larger than {@link FrameBatch#COPY_LIMIT} is written around its shared direct frames
     * ({@link #sharedFrames}, encoded once for every connection): each multiplexed frame is this connection's prefix
     * followed by the body of a shared frame, retained, not copied. A smaller one is encoded straight from the batch's
     * payloads into the drain's pooled direct buffer, which its other frames share (a QUIC stream sends at least one
     * packet per buffer written to it): copying a few KiB costs less than sharing it, and a heap encoding first would
     * be a copy made only to be copied again (issue 12: 40% of the broker's allocation at 1 KiB fanout 1 was that
     * copy).
     */
    static void muxEvents(FrameBatch out, EventBatch batch, int[] channels, int count, ByteBufAllocator alloc) {
        SharedFrames shared = sharedFrames(batch, true, alloc);
        if (shared != null) {
            for (ByteBuf frame : shared.frames) {
                muxFrame(out, frame, channels, count, alloc);
            }
            return;
        }
        if (fitsOneFrame(batch)) { // the usual case: no list of parts
            muxFrame(out, batch, channels, count);
            return;
        }
        for (EventBatch part : parts(batch)) {
            muxFrame(out, part, channels, count);
        }
    }

    private static void muxFrame(FrameBatch out, EventBatch batch, int[] channels, int count) {
        if (batch.lent() != null) { // the head, then the events as they arrived, in one copy
            int length = EventBatchEncoder.muxFrameLength(count, batch.eventCount(), batch.lentLength());
            int head = length - batch.lentLength();
            ByteBuf frame = out.room(length);
            int at = frame.writerIndex();
            EventBatchEncoder.encodeMuxHead(frame.internalNioBuffer(at, head), channels, count, batch.baseOffset(),
                    batch.eventCount(), batch.lentLength());
            frame.writerIndex(at + head);
            writeEvents(frame, batch);
            return;
        }
        int length = EventBatchEncoder.muxFrameLength(count, batch.payloadArray(), batch.arrayFrom(),
                batch.eventCount());
        ByteBuf frame = out.room(length);
        int at = frame.writerIndex();
        EventBatchEncoder.encodeMux(frame.internalNioBuffer(at, length), channels, count, batch.baseOffset(),
                batch.payloadArray(), batch.arrayFrom(), batch.eventCount());
        frame.writerIndex(at + length);
    }

    /**
     * The multiplexed frame for {@code channels[0..count)} whose body is that of {@code shared}, a shared frame with base
     * offset: the prefix is encoded here and the body is the shared bytes themselves, retained, both written as one
     * buffer (one send, so no packet of its own for the prefix). A frame small enough to be copied is copied.
     */
    private static void muxFrame(FrameBatch out, ByteBuf shared, int[] channels, int count, ByteBufAllocator alloc) {
        int prefix = EventBatchEncoder.muxPrefixLength(count);
        int body = shared.readableBytes() - FrameHeader.HEADER_LENGTH;
        int bodyAt = shared.readerIndex() + FrameHeader.HEADER_LENGTH;
        if (prefix + body <= FrameBatch.COPY_LIMIT) {
            ByteBuf room = out.room(prefix + body);
            int at = room.writerIndex();
            EventBatchEncoder.encodeMuxPrefix(room.internalNioBuffer(at, prefix), channels, count,
                    shared.readableBytes());
            room.writerIndex(at + prefix);
            room.writeBytes(shared, bodyAt, body);
            return;
        }
        ByteBuf head = alloc.directBuffer(prefix, prefix);
        try {
            EventBatchEncoder.encodeMuxPrefix(head.internalNioBuffer(0, prefix), channels, count,
                    shared.readableBytes());
        } catch (RuntimeException e) {
            head.release();
            throw e;
        }
        head.writerIndex(prefix);
        CompositeByteBuf frame = alloc.compositeDirectBuffer(2);
        frame.addComponents(true, head, shared.retainedSlice(bodyAt, body));
        out.add(frame, null);
    }

    /**
     * Encoding slots of a batch's shared direct frames ({@link EventBatch#shared}): with base offsets ({@code 0x0024},
     * whose body is also every multiplexed frame's body), and without ({@code 0x0004}).
     */
    static final int SHARED_OFFSETS = 0;
    static final int SHARED_PLAIN = 1;

    /**
     * A batch's frames ({@link #FRAME_SPLIT_BYTES} each at most) encoded once into pooled direct buffers that every
     * subscriber's write shares: a writer writes a retained duplicate (or, multiplexed, a retained slice of the body
     * behind its own prefix) and Netty releases it once sent. The buffers themselves are released when the batch's
     * last share is given back ({@link EventBatch#releaseShare()}).
     */
    static final class SharedFrames implements EventBatch.SharedEncoding {
        private final ByteBuf[] frames;

        private SharedFrames(ByteBuf[] frames) {
            this.frames = frames;
        }

        /** The frames, in order. Write retained duplicates or slices, never these. */
        ByteBuf[] frames() {
            return frames;
        }

        @Override
        public void release() {
            for (ByteBuf f : frames) {
                f.release();
            }
        }
    }

    /**
     * The shared frames of {@code batch} for a writer that holds one of its shares, encoded on first use with
     * {@code alloc}; null when its writers should copy instead: the batch is small enough for its frames to be copied
     * into a drain's buffer anyway ({@link FrameBatch#COPY_LIMIT}), or its shares are not counted (a view, a replay).
     */
    static SharedFrames sharedFrames(EventBatch batch, boolean withOffsets, ByteBufAllocator alloc) {
        if (carried(batch) <= FrameBatch.COPY_LIMIT) {
            return null;
        }
        return batch.shared(withOffsets ? SHARED_OFFSETS : SHARED_PLAIN, b -> encodeShared(b, withOffsets, alloc));
    }

    private static SharedFrames encodeShared(EventBatch b, boolean withOffsets, ByteBufAllocator alloc) {
        ArrayList<ByteBuf> frames = new ArrayList<>();
        try {
            for (EventBatch part : parts(b)) {
                int length = frameLength(part, withOffsets);
                ByteBuf frame = alloc.directBuffer(length, length);
                frames.add(frame);
                if (part.lent() != null) {
                    int head = length - part.lentLength();
                    EventBatchEncoder.encodeSharedHead(frame.internalNioBuffer(0, head), withOffsets,
                            part.baseOffset(), part.eventCount(), part.lentLength());
                    frame.writerIndex(head);
                    writeEvents(frame, part);
                } else {
                    encode(part, withOffsets, frame.internalNioBuffer(0, length));
                    frame.writerIndex(length);
                }
            }
        } catch (RuntimeException | Error e) {
            frames.forEach(ByteBuf::release);
            throw e;
        }
        return new SharedFrames(frames.toArray(new ByteBuf[0]));
    }

    /** Whether {@code batch} goes in one frame: its payloads and their length prefixes fit the split size. */
    static boolean fitsOneFrame(EventBatch batch) {
        return carried(batch) <= FRAME_SPLIT_BYTES;
    }

    /** Payload bytes of {@code batch} with their length prefixes: what the split size and the copy limit bound. */
    private static long carried(EventBatch batch) {
        return batch.payloadBytes() + (long) EventBatchEncoder.PAYLOAD_LENGTH_PREFIX * batch.eventCount();
    }

    /**
     * {@code batch} cut into the consecutive parts its frames carry: as many events as fit {@link #FRAME_SPLIT_BYTES}
     * with their length prefixes, and at least one; views, no copy.
     */
    private static List<EventBatch> parts(EventBatch batch) {
        return batch.split(FRAME_SPLIT_BYTES, EventBatchEncoder.PAYLOAD_LENGTH_PREFIX);
    }

    /** Appends the events of a batch with lent payloads to {@code dst}, as they lie: lengths and bytes, one copy. */
    private static void writeEvents(ByteBuf dst, EventBatch b) {
        if (b.lent() instanceof PooledPayloads pooled) {
            pooled.writeTo(dst, b.lentPosition(), b.lentLength());
        } else { // another kind of lent memory (not made by this broker): through an array
            byte[] events = new byte[b.lentLength()];
            b.lent().copy(b.lentPosition(), events, 0, events.length);
            dst.writeBytes(events);
        }
    }

    /** Exact length of {@code b}'s shared frame. */
    private static int frameLength(EventBatch b, boolean withOffsets) {
        if (b.lent() != null) {
            return EventBatchEncoder.sharedFrameLength(withOffsets, b.eventCount(), b.lentLength());
        }
        return EventBatchEncoder.sharedFrameLength(withOffsets, b.payloadArray(), b.arrayFrom(), b.eventCount());
    }

    private static byte[][] encodeSplit(EventBatch b, boolean withOffsets) {
        if (fitsOneFrame(b)) {
            return new byte[][] {encode(b, withOffsets)};
        }
        List<EventBatch> parts = parts(b);
        byte[][] frames = new byte[parts.size()][];
        for (int i = 0; i < frames.length; i++) {
            frames[i] = encode(parts.get(i), withOffsets);
        }
        return frames;
    }

    private static byte[] encode(EventBatch b, boolean withOffsets) {
        int length = frameLength(b, withOffsets);
        byte[] frame = new byte[length];
        if (b.lent() != null) {
            int head = length - b.lentLength();
            EventBatchEncoder.encodeSharedHead(ByteBuffer.wrap(frame, 0, head), withOffsets, b.baseOffset(),
                    b.eventCount(), b.lentLength());
            b.lent().copy(b.lentPosition(), frame, head, b.lentLength());
        } else {
            encode(b, withOffsets, ByteBuffer.wrap(frame));
        }
        return frame;
    }

    private static void encode(EventBatch b, boolean withOffsets, ByteBuffer dst) {
        if (withOffsets) {
            EventBatchEncoder.encodeSharedWithOffset(dst, b.baseOffset(), b.payloadArray(), b.arrayFrom(),
                    b.eventCount());
        } else {
            EventBatchEncoder.encodeShared(dst, b.payloadArray(), b.arrayFrom(), b.eventCount());
        }
    }

    /**
     * An {@code error} message for a peer with {@code negotiated} capabilities: the stable code (and
     * request id) only if it asked for error codes.
     */
    static Message error(FelixError error, Long requestId, int negotiated) {
        if (Capabilities.has(negotiated, Capabilities.ERROR_CODES)) {
            return new Message.ErrorMessage(error.message(), error.code().code(), requestId,
                    error.offset() >= 0 ? error.offset() : null, leader(error, negotiated));
        }
        return new Message.ErrorMessage(error.message(), null, null);
    }

    /** The {@code leader} object of a {@code not_leader} error, for a client that negotiated {@code CLUSTER}. */
    static dev.felix.wire.LeaderInfo leader(FelixError error, int negotiated) {
        FelixError.Leader l = error.leader();
        if (l == null || !Capabilities.has(negotiated, Capabilities.CLUSTER)) {
            return null;
        }
        return new dev.felix.wire.LeaderInfo(l.nodeId(), l.address(), l.epoch());
    }

    static Message error(ErrorCode code, String message, int negotiated) {
        return error(FelixError.of(code, message), null, negotiated);
    }
}
