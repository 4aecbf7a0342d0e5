package dev.felix.client;

import dev.felix.wire.ErrorCode;

/**
 * A request failed. {@link #code()} says why in a stable form; the message explains it for people.
 * Cursor errors carry the offset the broker has ({@link #availableOffset()}).
 */
public class FelixClientException extends RuntimeException {

    private final ErrorCode code;
    private final long availableOffset;
    private final dev.felix.wire.LeaderInfo leader;

    public FelixClientException(ErrorCode code, String message) {
        this(code, message, -1, null);
    }

    public FelixClientException(ErrorCode code, String message, long availableOffset, Throwable cause) {
        this(code, message, availableOffset, cause, null);
    }

    /** With the leader a {@code not_leader} error names. */
    public FelixClientException(ErrorCode code, String message, long availableOffset, Throwable cause,
            dev.felix.wire.LeaderInfo leader) {
        super(code.code() + ": " + message, cause);
        this.code = code;
        this.availableOffset = availableOffset;
        this.leader = leader;
        this.brokerMessage = message;
    }

    private final String brokerMessage;

    /** The broker's (or the SDK's) explanation alone, without the code in front. */
    public String brokerMessage() {
        return brokerMessage;
    }

    /**
     * For {@code not_leader} from a clustered broker: the node that leads instead ({@code node}, its client
     * address {@code addr}, the leader {@code epoch}); else null.
     */
    public dev.felix.wire.LeaderInfo leader() {
        return leader;
    }

    public ErrorCode code() {
        return code;
    }

    /** For {@code cursor_too_old}: the oldest retained offset; {@code cursor_in_future}: the tail; else -1. */
    public long availableOffset() {
        return availableOffset;
    }
}
