package dev.felix.wire;

import java.util.Objects;

/**
 * The 9-byte prefix of an acked binary publish batch (flags {@code 0x0009}), decodable on its own.
 *
 * <pre>
 *  offset  size  field
 *  0       8     request_id (u64)
 *  8       1     ack_mode: 1 = per_message, 2 = per_batch (anything else: {@link WireError#BAD_ACK_MODE})
 *  9       ...   the {@link BinaryPublishBatch} body
 * </pre>
 *
 * <p>Why separate: a broker that can read the prefix but not the body still knows whom to answer,
 * and replies with a binary ack {@code error "malformed publish batch"} instead of ending the
 * stream. Use {@link WireCodec#decodeAckedPublishPrefix} first, then
 * {@link WireCodec#decodeAckedPublishBatch}.
 *
 * @param requestId u64 request id, echoed in the ack
 * @param ackMode   {@link AckMode#PER_MESSAGE} or {@link AckMode#PER_BATCH}
 */
public record AckedPublishPrefix(long requestId, AckMode ackMode) {
    /** Prefix length in bytes. */
    public static final int LENGTH = 9;
    /** Offset of the u64 request id. */
    public static final int REQUEST_ID_OFFSET = 0;
    /** Offset of the ack mode byte. */
    public static final int ACK_MODE_OFFSET = 8;

    /** @throws IllegalArgumentException for {@link AckMode#NONE}, which has no binary form */
    public AckedPublishPrefix {
        checkMode(ackMode);
    }

    static void checkMode(AckMode ackMode) {
        Objects.requireNonNull(ackMode, "ack_mode");
        if (ackMode == AckMode.NONE) {
            throw new IllegalArgumentException("ack_mode none has no binary form; use flags 0x0001");
        }
    }

    @Override
    public String toString() {
        return "AckedPublishPrefix[requestId=" + Long.toUnsignedString(requestId) + ", ackMode=" + ackMode + "]";
    }
}
