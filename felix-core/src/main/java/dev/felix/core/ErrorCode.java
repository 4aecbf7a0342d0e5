package dev.felix.core;

import java.util.Locale;

/**
 * Stable error codes. The wire name ({@link #code()}) is part of the protocol: clients branch on it,
 * so a code is never renamed or reused for another meaning.
 */
public enum ErrorCode {
    /** The named tenant, namespace, stream or cache does not exist. */
    NOT_FOUND,
    /** A resource with that name exists already (with a different definition). */
    ALREADY_EXISTS,
    /** The request was understood but is not permitted for this principal. */
    FORBIDDEN,
    /** Authentication is missing, failed or expired. */
    UNAUTHORIZED,
    /** The request is malformed or invalid; retrying it unchanged will fail again. */
    BAD_REQUEST,
    /** A resume offset is below what is retained; the error names the oldest retained offset. */
    CURSOR_TOO_OLD,
    /** A resume offset is past the tail; the error names the tail. */
    CURSOR_IN_FUTURE,
    /** A bounded queue or budget is full; retry later. */
    OVERLOADED,
    /** The resource is in use (a delete of a stream with subscribers); the message says how to force it. */
    IN_USE,
    /** This node does not lead the shard; the error names the leader when known. */
    NOT_LEADER,
    /** The batch is durable locally but did not reach a majority in time. */
    QUORUM_TIMEOUT,
    /** The resource or node cannot serve now (shutting down, failed storage, no leader). */
    UNAVAILABLE,
    /** Stored data failed a check; the message names the file and position. */
    CORRUPTION,
    /** A bug or an unexpected failure inside the broker. */
    INTERNAL,
    /**
     * A frame is larger than the receiver's {@code max_frame_bytes}; the message names the limit and its
     * value. The stream that carried it is closed (its framing cannot be trusted past that point).
     */
    TOO_LARGE,
    /**
     * A node serving the subscription through a cross-node relay lost events the subscriber had not received
     * (the relay fell behind); the subscription is closed and the error's offset is where to resubscribe.
     */
    RESYNC;

    private final String code = name().toLowerCase(Locale.ROOT);

    /** The wire name, e.g. {@code not_found}. */
    public String code() {
        return code;
    }

    /** The code with this wire name, or {@link #INTERNAL} for names this version does not know. */
    public static ErrorCode fromCode(String code) {
        if (code != null) {
            for (ErrorCode c : values()) {
                if (c.code.equals(code)) {
                    return c;
                }
            }
        }
        return INTERNAL;
    }
}
