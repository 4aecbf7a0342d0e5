package dev.felix.client;

import dev.felix.transport.ClientTrust;
import dev.felix.transport.IoRuntime;
import dev.felix.transport.QuicClient;
import dev.felix.transport.TlsException;
import dev.felix.transport.TransportConfig;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * The UDP sockets of the clients that share one {@link ClientResources}: for each broker endpoint, at most one
 * socket per event loop, each carrying the QUIC connections of many clients.
 *
 * <p><b>Why.</b> A socket per connection costs a system call per datagram each way: the read of each datagram
 * (and the read that finds none left), and a send for each transport acknowledgement. A hundred watchers each
 * answering every change packet with an acknowledgement of its own is most of what such a process spends. On a
 * shared socket one wakeup reads the datagrams of every connection that received some, and the acknowledgements
 * those connections owe leave together in one {@code sendmmsg}. Connections stay separate QUIC connections (their
 * own keys, streams, flow control and congestion control); the broker tells them apart by connection id, as it
 * must anyway.
 *
 * <p><b>Which socket.</b> Clients of one endpoint take the sockets in turn, so connections spread over the
 * event loops as they did with a socket each. The endpoint is the broker address, the server name, the transport
 * settings and the trust ({@link ClientTrust} compares by value: the same anchors, or the same pinned
 * fingerprint): clients that differ in any of them never share a socket, since its TLS set-up is one of them.
 *
 * <p><b>Life.</b> A socket opens when the first client needs it and closes when its last client is closed, after
 * that client's CONNECTION_CLOSE has left ({@link QuicClient#close}). A socket that closed under its clients is
 * replaced for the next client.
 *
 * <p><b>Threads.</b> Thread-safe; a lock guards the table. Only connecting and closing clients take it.
 */
final class SharedSockets {

    /** What makes two clients' sockets interchangeable (a record: equal values, one endpoint). */
    private record Endpoint(InetSocketAddress broker, String serverName, TransportConfig transport,
            ClientTrust trust) {
    }

    /** One endpoint's sockets, a slot per event loop, and how many clients use each. */
    private static final class Slots {
        final QuicClient[] sockets;
        final int[] users;
        int next;

        Slots(int n) {
            sockets = new QuicClient[n];
            users = new int[n];
        }
    }

    private final IoRuntime io;
    private final int slotsPerEndpoint;
    private final Map<Endpoint, Slots> endpoints = new HashMap<>();
    private final Map<QuicClient, Endpoint> owners = new HashMap<>();

    SharedSockets(IoRuntime io, int eventLoops) {
        this.io = io;
        this.slotsPerEndpoint = eventLoops;
    }

    /** A socket for a new client's connection; give it back with {@link #release}. */
    synchronized QuicClient acquire(InetSocketAddress broker, String serverName, TransportConfig transport,
            ClientTrust trust) throws dev.felix.transport.TransportException, TlsException {
        Endpoint endpoint = new Endpoint(broker, serverName, transport, trust);
        Slots slots = endpoints.computeIfAbsent(endpoint, e -> new Slots(slotsPerEndpoint));
        int i = slots.next;
        slots.next = (i + 1) % slots.sockets.length;
        QuicClient socket = slots.sockets[i];
        if (socket == null || !socket.isOpen()) {
            if (socket != null) {
                owners.remove(socket); // closed under its clients; they release it into nothing
            }
            socket = QuicClient.create(broker, serverName, transport, trust, io);
            slots.sockets[i] = socket;
            slots.users[i] = 0;
            owners.put(socket, endpoint);
        }
        slots.users[i]++;
        return socket;
    }

    /** Gives back a socket from {@link #acquire}; the last client's release closes it. */
    void release(QuicClient socket) {
        QuicClient closing = null;
        synchronized (this) {
            Endpoint endpoint = owners.get(socket);
            if (endpoint == null) {
                closing = socket; // replaced after it closed: make sure it is closed
            } else {
                Slots slots = endpoints.get(endpoint);
                for (int i = 0; i < slots.sockets.length; i++) {
                    if (slots.sockets[i] == socket && --slots.users[i] == 0) {
                        slots.sockets[i] = null;
                        owners.remove(socket);
                        closing = socket;
                    }
                }
            }
        }
        if (closing != null) {
            closing.close(); // outside the lock: it waits for the last CONNECTION_CLOSE to leave
        }
    }

    /** Sockets open now (for tests and metrics). */
    synchronized int open() {
        return owners.size();
    }
}
