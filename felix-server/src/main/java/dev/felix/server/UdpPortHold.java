package dev.felix.server;

import dev.felix.server.config.ConfigException;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;

/**
 * A UDP port the kernel chose for a setting given with port 0, held by a socket of its own until the server that
 * will use it binds: {@link #release()} just before that bind.
 *
 * <p>Why: a cluster member must know its client and peer ports before it serves on them (other nodes learn them from
 * metadata while it joins), so it picks them at the start and binds them seconds later. A port picked and freed at
 * once could be taken in between by any socket asking the kernel for a free one (a QUIC client's, another node's in
 * the same JVM), and the bind then failed with "address already in use" (seen once in a full test run, in
 * {@code RelaySubscribeIntegrationTest}). Held, the port is free only for the moment between the release and the
 * bind.
 *
 * <p><b>Threads.</b> Taken and released by the thread that starts the member; {@link #release()} is idempotent.
 */
final class UdpPortHold implements AutoCloseable {

    private final DatagramSocket socket;
    private final int port;

    private UdpPortHold(DatagramSocket socket) {
        this.socket = socket;
        this.port = socket.getLocalPort();
    }

    /**
     * Binds a socket to a port the kernel chooses on {@code host} and keeps it.
     *
     * @throws ConfigException naming {@code setting} when no port can be bound on that host
     */
    static UdpPortHold take(String host, String setting) throws ConfigException {
        try {
            return new UdpPortHold(new DatagramSocket(new InetSocketAddress(host, 0)));
        } catch (IOException e) {
            throw new ConfigException("could not find a free port on " + setting + " host " + host + ": "
                    + e.getMessage());
        }
    }

    /** The port held (still the one to bind after {@link #release()}). */
    int port() {
        return port;
    }

    /** Whether the port is still held. */
    boolean held() {
        return !socket.isClosed();
    }

    /** Frees the port for the server about to bind it. */
    void release() {
        socket.close();
    }

    @Override
    public void close() {
        release();
    }
}
