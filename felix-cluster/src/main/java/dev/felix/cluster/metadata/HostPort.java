package dev.felix.cluster.metadata;

import java.util.Objects;

/**
 * A {@code host:port} pair as settings name it ({@code [v6]:port} for an IPv6 literal). Immutable.
 *
 * @param host a host name or IP literal (without brackets)
 * @param port 0–65535; 0 where a setting allows "pick a free port"
 */
public record HostPort(String host, int port) {

    public HostPort {
        Objects.requireNonNull(host, "host");
        if (host.isEmpty()) {
            throw new IllegalArgumentException("host must not be empty");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be within [0, 65535], was " + port);
        }
    }

    /**
     * Parses {@code host:port} (or {@code [v6]:port}) for the setting named {@code setting}; the message of a
     * failure names the setting and the expected form.
     */
    public static HostPort parse(String setting, String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException(setting + " must be HOST:PORT, was empty");
        }
        String t = text.trim();
        String host;
        String port;
        if (t.startsWith("[")) {
            int end = t.indexOf(']');
            if (end < 0 || end + 1 >= t.length() || t.charAt(end + 1) != ':') {
                throw new IllegalArgumentException(setting + " must be HOST:PORT or [IPV6]:PORT, was '" + text + "'");
            }
            host = t.substring(1, end);
            port = t.substring(end + 2);
        } else {
            int colon = t.lastIndexOf(':');
            if (colon <= 0 || t.indexOf(':') != colon) {
                throw new IllegalArgumentException(setting + " must be HOST:PORT (IPv6 as [ADDR]:PORT), was '"
                        + text + "'");
            }
            host = t.substring(0, colon);
            port = t.substring(colon + 1);
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(setting + ": port '" + port + "' is not a number (in '" + text + "')");
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException(setting + " must name a host, was '" + text + "'");
        }
        if (p < 0 || p > 65_535) {
            throw new IllegalArgumentException(setting + ": port must be within [0, 65535], was " + p);
        }
        return new HostPort(host, p);
    }

    /** Whether the host is a wildcard address, which other nodes cannot dial. */
    public boolean wildcard() {
        return host.equals("0.0.0.0") || host.equals("::") || host.equals("0:0:0:0:0:0:0:0");
    }

    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
