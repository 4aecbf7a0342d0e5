package dev.felix.wire;

import java.util.Locale;

/**
 * Stable values of the {@code code} field of {@code error} / {@code publish_error} (extension
 * {@link Capabilities#ERROR_CODES}), shared by the broker and the client SDK; plus the two the SDK raises on
 * its own side ({@link #TIMEOUT}, {@link #CONNECTION_LOST}), which never travel on the wire.
 *
 * <p>The field is a plain string on the wire so that a newer broker can add codes without breaking older
 * clients: {@link #fromCode} maps a name this version does not know to {@link #INTERNAL}. A code is never
 * renamed or reused for another meaning.
 */
public enum ErrorCode {
    /** The named tenant, namespace, stream or cache does not exist. */
    NOT_FOUND,
    /** {@code stream_create} / {@code cache_create} for a name that exists with another definition. */
    ALREADY_EXISTS,
    /** Authenticated but not permitted. */
    FORBIDDEN,
    /** Authentication is missing, failed or expired. */
    UNAUTHORIZED,
    /** The request is malformed or invalid (including undecodable frames, when the stream survives). */
    BAD_REQUEST,
    /** Resume below retention; the message names the oldest offset. */
    CURSOR_TOO_OLD,
    /** Resume past the tail. */
    CURSOR_IN_FUTURE,
    /** A bounded queue or budget is full; retry later. */
    OVERLOADED,
    /** The resource is in use (a delete of a stream with subscribers, a cache with watchers). */
    IN_USE,
    /** This node does not lead the shard (cluster); the message names the leader. */
    NOT_LEADER,
    /** The batch is durable here but did not reach a majority in time (cluster). */
    QUORUM_TIMEOUT,
    /** The resource cannot be served right now (shutting down, failed storage, no leader). */
    UNAVAILABLE,
    /** Stored data failed a check; the message names the file and position. */
    CORRUPTION,
    /** A bug or an unexpected failure inside the broker, or a code this version does not know. */
    INTERNAL,
    /**
     * A message is larger than {@code max_frame_bytes}: refused by the SDK before sending (its
     * {@code ClientConfig.Builder.maxFrameBytes}) or by the broker (its {@code max_frame_bytes} setting); the
     * message names the limit and its value.
     */
    TOO_LARGE,
    /**
     * The node serving a subscription through its cross-node relay lost events the subscriber had not
     * received; the subscription was closed, and the error's {@code offset} is where to subscribe again.
     */
    RESYNC,
    /** Client side only: no reply arrived within the request timeout. */
    TIMEOUT,
    /** Client side only: the connection to the broker is gone (or could not be made). */
    CONNECTION_LOST,
    /**
     * Client side only: TLS failed because the broker's certificate is not trusted (not signed by the trusted
     * certificates, not the pinned fingerprint, or not issued for the server name).
     */
    UNTRUSTED,
    /**
     * Client side only: the broker closed the connection because it is shutting down (SIGTERM, drain); it
     * acknowledged what it accepted before: reconnect once it is back, or to another node.
     */
    BROKER_SHUTTING_DOWN;

    private final String code = name().toLowerCase(Locale.ROOT);

    /** The wire name, e.g. {@code not_found}. */
    public String code() {
        return code;
    }

    /** The code with this wire name; unknown or missing names (a newer or older broker) map to {@link #INTERNAL}. */
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
