package dev.felix.wire;

import java.util.Objects;

/**
 * Binary publish ack, frame flags {@code 0x0010} (broker to client): the reply to a
 * {@link BinaryAckedPublishBatch}, and only to that (JSON requests get JSON replies).
 *
 * <pre>
 *  offset  size          field
 *  0       1             status: 0 = ok, 1 = error (anything else: {@link WireError#BAD_FIELD})
 *  1       8             request_id (u64)
 *  9       2             message_len (0 when ok)
 *  11      message_len   message, UTF-8 (error text)
 * </pre>
 *
 * Examples: ok, id 7: {@code 00 0000000000000007 0000}; error, id 9, "stream not found":
 * {@code 01 0000000000000009 0010 73747265616d206e6f7420666f756e64}.
 *
 * <p>Encoding truncates the error text to at most {@link #MAX_MESSAGE_BYTES} bytes, cutting on a
 * UTF-8 character boundary (as the upstream broker does). Decoding an ok ack reads and discards any
 * message bytes without checking them (as upstream); decoding an error ack requires valid UTF-8.
 * Bytes after the message are {@link WireError#TRAILING_BYTES}.
 *
 * @param status    ok or error
 * @param requestId u64 request id of the acked batch
 * @param message   the error text; {@code null} exactly when {@code status} is ok
 */
public record BinaryPublishAck(Status status, long requestId, String message) implements BinaryPayload {
    /** Fixed part: status, request id, message length. */
    public static final int FIXED_LENGTH = 11;
    /** Longest error text the encoder writes, in UTF-8 bytes. */
    public static final int MAX_MESSAGE_BYTES = 512;

    /** The status byte. */
    public enum Status {
        /** {@code 0}: accepted. */
        OK,
        /** {@code 1}: rejected; {@code message} says why. */
        ERROR
    }

    /** @throws IllegalArgumentException if {@code message} is present on ok or absent on error */
    public BinaryPublishAck {
        Objects.requireNonNull(status, "status");
        if ((status == Status.OK) != (message == null)) {
            throw new IllegalArgumentException("message must be null exactly when status is OK");
        }
    }

    /** An ok ack. */
    public static BinaryPublishAck ok(long requestId) {
        return new BinaryPublishAck(Status.OK, requestId, null);
    }

    /** An error ack. */
    public static BinaryPublishAck error(long requestId, String message) {
        return new BinaryPublishAck(Status.ERROR, requestId, Objects.requireNonNull(message, "message"));
    }

    /** {@link FrameFlags#BINARY_PUBLISH_ACK}. */
    @Override
    public int frameFlags() {
        return FrameFlags.BINARY_PUBLISH_ACK;
    }

    @Override
    public String toString() {
        return "BinaryPublishAck[status=" + status + ", requestId=" + Long.toUnsignedString(requestId)
            + ", message=" + message + "]";
    }
}
