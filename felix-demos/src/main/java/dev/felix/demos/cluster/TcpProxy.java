package dev.felix.demos.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on loopback in front of one node's Raft endpoint (its {@code raft_advertise} port), for fault tests:
 *
 * <ul>
 *   <li>{@link #stallOpenConnections()} makes every connection open now stop carrying bytes, both ways, without
 *       ever being closed or reset, as a connection whose NAT or firewall state was lost would. Connections opened
 *       later are carried as usual, so a peer that reconnects gets through.</li>
 *   <li>{@link #cutOff(long)} does the same to every connection from one process, open now or opened later: one side
 *       of a network partition. {@link #heal()} closes every stalled connection (as TCP gives up after a long
 *       partition) and carries new ones again.</li>
 * </ul>
 *
 * <p>Which process opened a connection is read from Linux' {@code /proc}: the socket whose local port is the
 * connection's source port, and the process holding that socket. Every process is on this machine.
 *
 * <p>Two threads per connection copy bytes; a stalled connection's threads hold what they read and wait until the
 * connection is closed. Thread-safe.
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final List<Link> links = new CopyOnWriteArrayList<>();
    /** Processes whose connections are stalled, open or new ({@link #cutOff}). */
    private final java.util.Set<Long> cutOff = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    private final Thread acceptor;

    private TcpProxy(ServerSocket listener, InetSocketAddress target) {
        this.listener = listener;
        this.target = target;
        this.acceptor = new Thread(this::accept, "tcp-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
    }

    /** A proxy listening on a free loopback port, forwarding to {@code target}. */
    public static TcpProxy start(InetSocketAddress target) throws IOException {
        ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        TcpProxy p = new TcpProxy(s, target);
        p.acceptor.start();
        return p;
    }

    /** The port this proxy listens on. */
    public int port() {
        return listener.getLocalPort();
    }

    /** Connections accepted since the start. */
    public int accepted() {
        return accepted.get();
    }

    /** Stops every connection open now from carrying bytes either way, leaving it open; returns how many. */
    public int stallOpenConnections() {
        int n = 0;
        for (Link l : links) {
            if (!l.stalled) {
                l.stalled = true;
                n++;
            }
        }
        return n;
    }

    /**
     * Stalls every connection process {@code pid} has open to this proxy now, and every one it opens until
     * {@link #heal()}; returns how many were open.
     */
    public int cutOff(long pid) {
        cutOff.add(pid);
        int n = 0;
        for (Link l : links) {
            if (!l.stalled && l.openedBy(pid)) {
                l.stalled = true;
                n++;
            }
        }
        return n;
    }

    /** Ends every {@link #cutOff}: closes every stalled connection, and carries new ones again. */
    public void heal() {
        cutOff.clear();
        for (Link l : links) {
            if (l.stalled) {
                l.close();
            }
        }
    }

    private void accept() {
        while (!listener.isClosed()) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            accepted.incrementAndGet();
            Socket server = new Socket();
            try {
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                server.connect(target, 3_000);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(server);
                continue; // as the target would: the connection is refused
            }
            Link link = new Link(client, server);
            links.add(link); // listed first, so that a cutOff from now on finds it
            try {
                if (cutOff.stream().anyMatch(link::openedBy)) {
                    link.stalled = true; // a partition: the connection is made, and nothing passes
                }
            } catch (RuntimeException e) {
                // Whose it is cannot be told: during a partition it passes nothing, as the safer side of the fault
                System.err.println("tcp-proxy " + port() + ": " + e + "; stalling the connection");
                link.stalled = true;
            }
            if (listener.isClosed()) {
                link.close(); // the proxy closed meanwhile
                return;
            }
            link.pump(client, server, "up");
            link.pump(server, client, "down");
        }
    }

    @Override
    public void close() {
        closeQuietly(listener);
        for (Link l : links) {
            l.close();
        }
        links.clear();
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /** One proxied connection: the client's socket and the one to the target. */
    private final class Link {
        final Socket client;
        final Socket server;
        volatile boolean stalled;
        private final CountDownLatch done = new CountDownLatch(1);
        /** Directions that passed their end of stream on; at 2 the connection is over and closed. */
        private final AtomicInteger finished = new AtomicInteger();
        private long inode = -1; // the client's socket in /proc; -1: not found (yet)

        Link(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        /** Whether process {@code pid} opened this connection (false when /proc does not say). */
        synchronized boolean openedBy(long pid) {
            if (inode < 0) {
                // The client's side of the connection: its local port is our remote one, and the other way round.
                inode = ProcSockets.inodeOf(client.getPort(), client.getLocalPort());
            }
            return inode >= 0 && ProcSockets.holds(pid, inode);
        }

        void close() {
            done.countDown();
            links.remove(this);
            closeQuietly(client);
            closeQuietly(server);
        }

        void pump(Socket from, Socket to, String direction) {
            Thread t = new Thread(() -> copy(from, to), "tcp-proxy-" + port() + "-" + from.getPort() + "-"
                    + direction);
            t.setDaemon(true);
            t.start();
        }

        private void copy(Socket from, Socket to) {
            byte[] buf = new byte[16 * 1024];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buf)) >= 0) {
                    if (stalled) {
                        // Hold what arrived, and everything after it, until the connection is closed here: no
                        // byte, no FIN, no reset reaches the other side.
                        done.await();
                        return;
                    }
                    out.write(buf, 0, n);
                }
                if (stalled) {
                    done.await();
                    return;
                }
                to.shutdownOutput(); // pass the FIN on
                if (finished.incrementAndGet() == 2) {
                    close(); // both ways ended
                }
            } catch (IOException e) {
                if (!stalled) {
                    close();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
