package dev.felix.server.protocol;

import dev.felix.core.ErrorCode;
import dev.felix.core.StreamName;
import dev.felix.server.auth.Authenticator;
import dev.felix.wire.Capabilities;
import dev.felix.wire.Message;

/**
 * The first frame of every client-opened stream: {@code auth}. Negotiates capabilities (so even a refusal is
 * shaped for what the client understands), asks the {@link Authenticator}, and answers {@code auth_ok} (or
 * {@code ok} to a client that predates negotiation). A refused or malformed {@code auth} ends the stream.
 * Stateless; event loop.
 */
final class StreamAuthentication {
    private StreamAuthentication() {
    }

    static void authenticate(StreamSession session, Message.Auth auth) {
        if (auth.clientFlags() != null) {
            session.negotiated(Capabilities.negotiate(auth.capabilities(), session.context.serverFlags()));
        }
        try {
            StreamName.checkPart("tenant", auth.tenantId());
        } catch (IllegalArgumentException e) {
            session.fail(ErrorCode.BAD_REQUEST, e.getMessage());
            return;
        }
        Authenticator.Result result = session.context.authenticator.authenticate(auth.tenantId(), auth.token(),
                session.connection != null && session.connection.loopbackPeer());
        if (result instanceof Authenticator.Denied denied) {
            session.fail(denied.error().code(), denied.error().message());
            return;
        }
        session.authenticated(((Authenticator.Allowed) result).tenant());
        if (session.bidirectional) {
            int server = session.context.serverFlags();
            // The second word only to a client that sent one: an older client never sees a key it did not ask for.
            session.write(auth.clientFlags() == null ? new Message.Ok()
                    : new Message.AuthOk(Capabilities.firstWord(server),
                            auth.clientFlagsExt() != null ? Capabilities.secondWord(server) : null));
        }
    }
}
