package dev.felix.client;

import dev.felix.wire.ErrorCode;
import dev.felix.transport.FrameDecoder;
import dev.felix.wire.FrameHeader;
import dev.felix.wire.Message;
import dev.felix.wire.WireCodec;
import dev.felix.wire.WireException;
import dev.felix.wire.WirePayload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;

/** Frame helpers of the client SDK. Stateless. */
final class ClientFrames {
    private ClientFrames() {
    }

    static FrameDecoder decoder(long maxFrameBytes) {
        return new FrameDecoder(FrameHeader.HEADER_LENGTH,
                (header, problem) -> FrameHeader.declaredPayloadLength(header, maxFrameBytes, problem));
    }

    static int flags(ByteBuf frame) {
        return frame.getUnsignedShort(frame.readerIndex() + FrameHeader.FLAGS_OFFSET);
    }

    static ByteBuffer payload(ByteBuf frame) {
        return frame.nioBuffer(frame.readerIndex() + FrameHeader.HEADER_LENGTH, frame.readableBytes() - FrameHeader.HEADER_LENGTH);
    }

    static WirePayload decode(ByteBuf frame) throws WireException {
        return WireCodec.decodePayload(flags(frame), payload(frame));
    }

    static ByteBuf encode(WirePayload payload) {
        return Unpooled.wrappedBuffer(WireCodec.encodeFrame(payload));
    }

    /** The exception a broker {@code error} stands for. */
    static FelixClientException toException(Message.ErrorMessage error) {
        return toException(error.code(), error.message(), error.offset() != null ? error.offset() : -1,
                error.leader());
    }

    /** The exception a mux channel's {@code subscription_ended} stands for. */
    static FelixClientException toException(Message.SubscriptionEnded ended) {
        return toException(ended.code(), ended.message(), -1, null);
    }

    /** The exception a publish result's error stands for. */
    static FelixClientException toException(dev.felix.wire.BinaryPublishResult error) {
        return toException(error.code(), error.message(), -1, null);
    }

    static FelixClientException toException(Message.PublishError error) {
        return toException(error.code(), error.message(), -1, error.leader());
    }

    /** {@code unavailable} because the broker is draining reads as {@link ErrorCode#BROKER_SHUTTING_DOWN}. */
    private static FelixClientException toException(String code, String message, long offset,
            dev.felix.wire.LeaderInfo leader) {
        if (dev.felix.wire.CloseReasons.isShutdown(code, message)) {
            return new FelixClientException(ErrorCode.BROKER_SHUTTING_DOWN, "the broker is shutting down (it said: "
                    + message + "); reconnect once it is back");
        }
        return new FelixClientException(ErrorCode.fromCode(code), message, offset, null, leader);
    }
}
