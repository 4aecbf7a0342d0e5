package dev.felix.server.auth;

/**
 * Dev mode (no credentials configured): any {@code auth} is accepted from loopback peers. A non-loopback
 * peer is accepted only when the operator started the broker with {@code --insecure}.
 */
public final class DevModeAuthenticator implements Authenticator {

    private final boolean insecure;

    public DevModeAuthenticator(boolean insecure) {
        this.insecure = insecure;
    }

    @Override
    public Result authenticate(String tenant, String token, boolean loopbackPeer) {
        if (!loopbackPeer && !insecure) {
            return Denied.of("this broker runs in dev mode and accepts loopback clients only");
        }
        return new Allowed(tenant, "dev");
    }
}
