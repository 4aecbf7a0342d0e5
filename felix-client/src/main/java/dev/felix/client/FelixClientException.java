package dev.felix.client;

import dev.felix.wire.ErrorCode;

/**
 * A request failed. {@link #code()} says why in a stable form; the message explains it for people.
 * Cursor errors carry the offset the broker has ({@link #availableOffset()}).
 */
public class FelixClientException extends RuntimeException {

    private final ErrorCode code;
    private final long availableOffset;

    public FelixClientException(ErrorCode code, String message) {
        this(code, message, -1, null);
    }

    public FelixClientException(ErrorCode code, String message, long availableOffset, Throwable cause) {
        super(code.code() + ": " + message, cause);
        this.code = code;
        this.availableOffset = availableOffset;
    }

    public ErrorCode code() {
        return code;
    }

    /** For {@code cursor_too_old}: the oldest retained offset; {@code cursor_in_future}: the tail; else -1. */
    public long availableOffset() {
        return availableOffset;
    }
}
