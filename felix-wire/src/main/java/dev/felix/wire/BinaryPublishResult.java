package dev.felix.wire;

import java.util.Objects;

/**
 * Publish result, frame flags {@code 0x0030} ({@code 0x0010 | 0x0020}, broker to client; extension
 * {@link Capabilities#ROUTED_BINARY_PUBLISH}): the reply to a {@link BinaryRoutedPublishBatch}, and
 * only to that. It carries what {@code publish_ok} / {@code publish_error} carry, except a
 * {@code not_leader}'s {@code leader}: the broker answers such an error, and any whose text is over
 * {@link #MAX_MESSAGE_BYTES}, with JSON {@code publish_error} instead (the client reads both).
 *
 * <pre>
 *  offset  size  field
 *  0       1     status: 0 = ok, 1 = error (anything else: {@link WireError#BAD_FIELD})
 *  1       8     request_id (u64)
 *  ok:
 *  9       8     first_offset (u64): the offset of the batch's first event
 *  17      4     count (u32): events in the batch
 *  21      4     shard (u32): the shard they went to
 *  error:
 *  9       1     code_len C (u8, at least 1)
 *  10      C     code, UTF-8: the stable {@code ErrorCode} (not_found, too_large, overloaded, ...)
 *  10+C    2     message_len M (u16)
 *  12+C    M     message, UTF-8
 * </pre>
 *
 * ok, id 7, offsets 100..101 of shard 1: {@code 00 0000000000000007 0000000000000064 00000002 00000001};
 * error, id 9: {@code 01 0000000000000009 09 6e6f745f666f756e64 0010 73747265616d206e6f7420666f756e64}
 * ({@code not_found}, "stream not found"). Unlike {@link BinaryPublishAck} nothing is cut: the encoder
 * refuses longer text ({@link #canCarry}). Bytes after the body are {@link WireError#TRAILING_BYTES}.
 *
 * @param requestId   u64 request id of the batch
 * @param firstOffset u64 first offset (ok; 0 on error)
 * @param count       u32 number of events (ok; 0 on error)
 * @param shard       u32 shard (ok; 0 on error)
 * @param code        the stable error code; null exactly when ok
 * @param message     the error text; null exactly when ok
 */
public record BinaryPublishResult(long requestId, long firstOffset, int count, int shard, String code,
    String message) implements BinaryPayload {

    /** Length of an ok result. */
    public static final int OK_LENGTH = 25;
    /** Longest error text, in UTF-8 bytes (u16 length). */
    public static final int MAX_MESSAGE_BYTES = 0xFFFF;
    /** Longest code, in UTF-8 bytes (u8 length). */
    public static final int MAX_CODE_BYTES = 0xFF;

    /** @throws IllegalArgumentException if only one of code and message is present, or either is too long */
    public BinaryPublishResult {
        if ((code == null) != (message == null)) {
            throw new IllegalArgumentException("code and message are both present (error) or both null (ok)");
        }
        if (code != null && (code.isEmpty() || !canCarry(code, message))) {
            throw new IllegalArgumentException("code must be 1-" + MAX_CODE_BYTES + " UTF-8 bytes and message at most "
                + MAX_MESSAGE_BYTES + ": " + code);
        }
    }

    /** An ok result. */
    public static BinaryPublishResult ok(long requestId, long firstOffset, int count, int shard) {
        return new BinaryPublishResult(requestId, firstOffset, count, shard, null, null);
    }

    /** An error result. */
    public static BinaryPublishResult error(long requestId, String code, String message) {
        return new BinaryPublishResult(requestId, 0, 0, 0, Objects.requireNonNull(code, "code"),
            Objects.requireNonNull(message, "message"));
    }

    /** Whether an error with this code and text fits the layout (else the broker answers in JSON). */
    public static boolean canCarry(String code, String message) {
        return Utf8.encode(code, "code").length <= MAX_CODE_BYTES
            && Utf8.encode(message, "message").length <= MAX_MESSAGE_BYTES;
    }

    /** Whether the batch was accepted. */
    public boolean isOk() {
        return code == null;
    }

    /** {@code 0x0030}. */
    @Override
    public int frameFlags() {
        return FrameFlags.BINARY_PUBLISH_ACK | FrameFlags.EVENT_BATCH_OFFSETS;
    }

    @Override
    public String toString() {
        return isOk()
            ? "BinaryPublishResult[ok, requestId=" + Long.toUnsignedString(requestId) + ", firstOffset="
                + Long.toUnsignedString(firstOffset) + ", count=" + Integer.toUnsignedString(count) + ", shard="
                + Integer.toUnsignedString(shard) + "]"
            : "BinaryPublishResult[error, requestId=" + Long.toUnsignedString(requestId) + ", code=" + code
                + ", message=" + message + "]";
    }
}
