package dev.felix.client;

import java.util.Locale;

/**
 * Stable error codes, as the broker sends them ({@code code} on errors) plus the client's own. Branch on
 * these, never on messages.
 */
public enum ErrorCode {
    NOT_FOUND,
    ALREADY_EXISTS,
    FORBIDDEN,
    UNAUTHORIZED,
    BAD_REQUEST,
    CURSOR_TOO_OLD,
    CURSOR_IN_FUTURE,
    OVERLOADED,
    NOT_LEADER,
    QUORUM_TIMEOUT,
    UNAVAILABLE,
    CORRUPTION,
    INTERNAL,
    /**
     * A message is larger than {@code max_frame_bytes}: refused by this SDK before sending (its
     * {@code ClientConfig.Builder.maxFrameBytes}) or by the broker (its {@code max_frame_bytes} setting);
     * the message names the limit and its value.
     */
    TOO_LARGE,
    /** Client side: no reply arrived within the request timeout. */
    TIMEOUT,
    /** Client side: the connection to the broker is gone (or could not be made). */
    CONNECTION_LOST,
    /**
     * Client side: TLS failed because the broker's certificate is not trusted: not signed by the
     * certificates given to {@code ClientTrust.certificates}, not the pinned fingerprint, or not issued
     * for the server name.
     */
    UNTRUSTED,
    /**
     * The broker closed the connection because it is shutting down (SIGTERM, drain): it acknowledged
     * what it accepted before; reconnect to it or another node once it is back.
     */
    BROKER_SHUTTING_DOWN;

    private final String code = name().toLowerCase(Locale.ROOT);

    public String code() {
        return code;
    }

    /** The code for a wire name; unknown or missing codes (an older broker) map to {@link #INTERNAL}. */
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
