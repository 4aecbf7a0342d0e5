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
    /** Client side: no reply arrived within the request timeout. */
    TIMEOUT,
    /** Client side: the connection to the broker is gone. */
    CONNECTION_LOST;

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
