package dev.felix.server.config;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/** A bind or connect address written {@code HOST:PORT} ({@code [v6]:PORT} for IPv6 literals). */
public record HostPort(String host, int port) {

    public HostPort {
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("host must not be empty");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be within [0, 65535], was " + port);
        }
    }

    /** Parses {@code HOST:PORT}; the message says what is wrong. */
    public static HostPort parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("expected HOST:PORT");
        }
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("expected HOST:PORT, got '" + text + "'");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port is not a number in '" + text + "'");
        }
        return new HostPort(host, port);
    }

    public InetSocketAddress toSocketAddress() {
        return new InetSocketAddress(host, port);
    }

    /** Whether the host is a loopback address (names are resolved). */
    public boolean isLoopback() {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
