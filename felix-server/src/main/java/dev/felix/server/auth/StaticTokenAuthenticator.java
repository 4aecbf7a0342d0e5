package dev.felix.server.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Map;

/**
 * Accepts a token configured for the requested tenant ({@code auth_tokens}). Comparison is constant
 * time; the same refusal is given for an unknown tenant and a wrong token.
 *
 * <p><b>Threads and buffers.</b> Immutable after construction; called from any event loop at once. Touches no
 * {@code ByteBuf}s.
 */
public final class StaticTokenAuthenticator implements Authenticator {

    private final Map<String, List<byte[]>> tokens;

    public StaticTokenAuthenticator(Map<String, List<String>> tokensByTenant) {
        this.tokens = new java.util.HashMap<>();
        tokensByTenant.forEach((tenant, list) -> tokens.put(tenant,
                list.stream().map(t -> t.getBytes(StandardCharsets.UTF_8)).toList()));
    }

    @Override
    public Result authenticate(String tenant, String token, boolean loopbackPeer) {
        byte[] presented = token == null ? new byte[0] : token.getBytes(StandardCharsets.UTF_8);
        boolean ok = false;
        for (byte[] expected : tokens.getOrDefault(tenant, List.of())) {
            ok |= MessageDigest.isEqual(expected, presented);
        }
        return ok ? new Allowed(tenant, "token") : Denied.of("authentication failed");
    }
}
