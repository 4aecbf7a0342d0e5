package dev.felix.server.auth;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;

/**
 * Decides whether an {@code auth} message may open a stream for a tenant. This is the single place
 * where credentials are checked; every client-opened stream passes through it before anything else.
 */
public interface Authenticator {

    /**
     * @param tenant        the tenant the client asks for
     * @param token         the client's token (never logged)
     * @param loopbackPeer  whether the connection comes from a loopback address
     */
    Result authenticate(String tenant, String token, boolean loopbackPeer);

    /** The outcome: a principal allowed to act for exactly one tenant, or a typed refusal. */
    sealed interface Result {
    }

    /** Allowed to act for {@code tenant}. */
    record Allowed(String tenant, String principal) implements Result {
    }

    /** Refused; {@code error} says why without revealing whether the tenant exists. */
    record Denied(FelixError error) implements Result {
        public static Denied of(String message) {
            return new Denied(FelixError.of(ErrorCode.UNAUTHORIZED, message));
        }
    }
}
