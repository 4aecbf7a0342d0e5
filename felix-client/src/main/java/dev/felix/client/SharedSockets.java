package dev.felix.client;

import dev.felix.transport.ClientTrust;
import dev.felix.transport.IoRuntime;
import dev.felix.transport.QuicClient;
import dev.felix.transport.TlsException;
import dev.felix.transport.TransportConfig;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The UDP sockets of the clients that share one {@link ClientResources}: for each broker endpoint, a few sockets,
 * each carrying the QUIC connections of up to {@code connectionsPerSocket} clients ({@value
 * #DEFAULT_CONNECTIONS_PER_SOCKET} unless {@link ClientResources#create(int, int, int)} says otherwise).
 *
 * <p><b>Why.</b> A socket per connection costs a system call per datagram each way: the read of each datagram
 * (and the read that finds none left), and a send for each transport acknowledgement. A hundred watchers each
 * answering every change packet with an acknowledgement of its own is most of what such a process spends. On a
 * shared socket one wakeup reads the datagrams of every connection that received some, and the acknowledgements
 * those connections owe leave together in one {@code sendmmsg}. Connections stay separate QUIC connections (their
 * own keys, streams, flow control and congestion control); the broker tells them apart by connection id, as it
 * must anyway.
 *
 * <p><b>Why a cap.</b> A socket's receive buffer is all the slack its connections have while their event loop is
 * busy. With 50 connections on one socket, 10,000 subscribers' deliveries overflowed it (2,399 datagrams dropped
 * by the kernel in one benchmark run, p99 1 s, against none and 63 ms with a socket each), so a socket takes at
 * most {@value #DEFAULT_CONNECTIONS_PER_SOCKET} connections by default and more clients open more sockets. One per
 * socket turns sharing off.
 *
 * <p><b>Which socket.</b> An endpoint first opens as many sockets as there are event loops (the runtime registers
 * each new socket on its next loop in turn), so that connections spread over the loops; after that a new client takes the socket with the fewest clients, and a new socket when every one is
 * full. The endpoint is the broker address, the server name, the transport settings and the trust ({@link
 * ClientTrust} compares by value: the same anchors, or the same pinned fingerprint): clients that differ in any of
 * them never share a socket, since its TLS set-up is one of them.
 *
 * <p><b>Life.</b> A socket opens when a client needs it and closes when its last client is closed, after that
 * client's CONNECTION_CLOSE has left ({@link QuicClient#close}). A socket that closed under its clients is
 * dropped from the table; new clients get another.
 *
 * <p><b>Threads.</b> Thread-safe; a lock guards the table. Only connecting and closing clients take it.
 */
final class SharedSockets {

    /** Connections one socket carries at most, unless the resources' creator chose otherwise. */
    static final int DEFAULT_CONNECTIONS_PER_SOCKET = 8;

    /** What makes two clients' sockets interchangeable (a record: equal values, one endpoint). */
    private record Endpoint(InetSocketAddress broker, String serverName, TransportConfig transport,
            ClientTrust trust) {
    }

    /** One socket and how many clients use it. */
    private static final class Shared {
        final QuicClient socket;
        final Endpoint endpoint;
        int users;

        Shared(QuicClient socket, Endpoint endpoint) {
            this.socket = socket;
            this.endpoint = endpoint;
        }
    }

    private final IoRuntime io;
    private final int eventLoops;
    private final int connectionsPerSocket;
    private final Map<Endpoint, List<Shared>> endpoints = new HashMap<>();
    private final Map<QuicClient, Shared> bySocket = new HashMap<>();

    SharedSockets(IoRuntime io, int eventLoops, int connectionsPerSocket) {
        this.io = io;
        this.eventLoops = eventLoops;
        this.connectionsPerSocket = connectionsPerSocket;
    }

    /** A socket for a new client's connection; give it back with {@link #release}. */
    synchronized QuicClient acquire(InetSocketAddress broker, String serverName, TransportConfig transport,
            ClientTrust trust) throws dev.felix.transport.TransportException, TlsException {
        Endpoint endpoint = new Endpoint(broker, serverName, transport, trust);
        List<Shared> sockets = endpoints.computeIfAbsent(endpoint, e -> new ArrayList<>());
        sockets.removeIf(s -> !s.socket.isOpen() && bySocket.remove(s.socket) != null); // closed under its clients
        Shared least = null;
        for (Shared s : sockets) {
            if (least == null || s.users < least.users) {
                least = s;
            }
        }
        if (least == null || sockets.size() < eventLoops || least.users >= connectionsPerSocket) {
            least = new Shared(QuicClient.create(broker, serverName, transport, trust, io), endpoint);
            sockets.add(least);
            bySocket.put(least.socket, least);
        }
        least.users++;
        return least.socket;
    }

    /** Gives back a socket from {@link #acquire}; the last client's release closes it. */
    void release(QuicClient socket) {
        synchronized (this) {
            Shared s = bySocket.get(socket);
            if (s != null && --s.users > 0) {
                return;
            }
            if (s != null) {
                bySocket.remove(socket);
                endpoints.get(s.endpoint).remove(s);
            }
        }
        socket.close(); // outside the lock: it waits for the last CONNECTION_CLOSE to leave
    }

    /** Sockets open now (for tests). */
    synchronized int open() {
        return bySocket.size();
    }
}
