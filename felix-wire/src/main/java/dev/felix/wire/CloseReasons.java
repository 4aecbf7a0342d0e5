package dev.felix.wire;

/**
 * Reasons a broker gives when it closes a whole QUIC connection (application close, error code 0, the
 * reason as UTF-8 text), so a client can tell the person why. Upstream Felix sends the same text.
 * Constants only; stateless.
 */
public final class CloseReasons {
    private CloseReasons() {
    }

    /** The broker is draining (SIGTERM): it refuses new work and closes every connection. */
    public static final String SHUTTING_DOWN = "broker shutting down";

    /**
     * Whether an {@code error} says the broker is shutting down: code {@code unavailable} with a message
     * ending in "shutting down", as a draining broker ends subscriptions and refuses publishes.
     */
    public static boolean isShutdown(String code, String message) {
        return ErrorCode.UNAVAILABLE.code().equals(code) && message != null && message.endsWith("shutting down");
    }
}
