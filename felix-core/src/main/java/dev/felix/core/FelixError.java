package dev.felix.core;

import java.util.Objects;

/**
 * An error as a value: a stable {@link ErrorCode} and a human-readable message. Optional fields
 * carry what a caller may act on (the offset to resume from, for example).
 *
 * @param code    stable machine-readable code
 * @param message explanation for a person; never parse it
 * @param offset  for cursor errors: the oldest retained offset ({@link ErrorCode#CURSOR_TOO_OLD}) or
 *                the tail ({@link ErrorCode#CURSOR_IN_FUTURE}); otherwise -1
 * @param leader  for {@link ErrorCode#NOT_LEADER}: who leads instead; otherwise null
 */
public record FelixError(ErrorCode code, String message, long offset, Leader leader) {

    /**
     * The node a {@code not_leader} error sends the client to.
     *
     * @param nodeId  its node id
     * @param address {@code host:port} of its client endpoint
     * @param epoch   the leader epoch
     */
    public record Leader(String nodeId, String address, long epoch) {
        public Leader {
            Objects.requireNonNull(nodeId, "nodeId");
            Objects.requireNonNull(address, "address");
        }
    }

    public FelixError {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
    }

    /** Without a leader. */
    public FelixError(ErrorCode code, String message, long offset) {
        this(code, message, offset, null);
    }

    public static FelixError of(ErrorCode code, String message) {
        return new FelixError(code, message, -1);
    }

    public FelixException toException() {
        return new FelixException(this);
    }

    @Override
    public String toString() {
        return code.code() + ": " + message;
    }
}
