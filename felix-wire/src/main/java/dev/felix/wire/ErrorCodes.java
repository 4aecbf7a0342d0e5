package dev.felix.wire;

/**
 * Stable values of the {@code code} field of {@code error} / {@code publish_error} (extension,
 * {@link Capabilities#ERROR_CODES}). The field is a plain string on the wire so that a newer broker
 * can add codes without breaking older clients; clients must treat an unknown code like a generic
 * error. These are the codes defined so far.
 */
public final class ErrorCodes {
    /** The named tenant, namespace, stream or cache does not exist. */
    public static final String NOT_FOUND = "not_found";
    /** Authenticated but not permitted. */
    public static final String FORBIDDEN = "forbidden";
    /** The request is malformed or invalid (including undecodable frames, when the stream survives). */
    public static final String BAD_REQUEST = "bad_request";
    /** {@code stream_create} for a stream that already exists with another configuration. */
    public static final String ALREADY_EXISTS = "already_exists";
    /** Resume below retention; the message names the oldest offset. */
    public static final String CURSOR_TOO_OLD = "cursor_too_old";
    /** Resume past the tail. */
    public static final String CURSOR_IN_FUTURE = "cursor_in_future";
    /** A bounded queue or budget is full; retry later. */
    public static final String OVERLOADED = "overloaded";
    /** This node does not lead the shard (cluster). */
    public static final String NOT_LEADER = "not_leader";
    /** The batch is durable here but did not reach a majority in time (cluster). */
    public static final String QUORUM_TIMEOUT = "quorum_timeout";
    /** The shard cannot be served right now (also: the broker is shutting down, see {@link CloseReasons}). */
    public static final String UNAVAILABLE = "unavailable";
    /** A frame declared more than the receiver's {@code max_frame_bytes}; the message names the limit. */
    public static final String TOO_LARGE = "too_large";

    private ErrorCodes() {
    }
}
