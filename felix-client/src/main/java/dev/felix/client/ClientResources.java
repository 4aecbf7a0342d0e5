package dev.felix.client;

import dev.felix.transport.IoRuntime;

/**
 * Threads that many {@link FelixClient}s of one process can share: event loops for their connections and a pool
 * for their {@link SubscriptionHandler}s. By default every client owns one event-loop thread and its own handler
 * threads, which is right for an application with one connection; a process that holds a hundred connections (a
 * gateway, a test harness, a benchmark) would otherwise run hundreds of threads that each wake for every packet.
 * Given to {@link ClientConfig.Builder#resources}, they serve every client built with it, and each client's
 * connection stays on one event loop for its life.
 *
 * <p><b>Shared sockets.</b> The clients of one broker endpoint also share UDP sockets, each carrying up to
 * 8 QUIC connections by default ({@link SharedSockets}): one wakeup reads the datagrams of every connection on
 * it and their transport acknowledgements leave in one system call, where a socket per connection paid a call
 * per datagram each way. Each client keeps its own connection, streams and flow control. The trade-off: a socket's
 * receive buffer is the slack of all its connections while their event loop is busy, so a process that receives
 * bursts heavier than a benchmark's 10,000 subscribers may want fewer per socket; {@link #create(int, int, int)}
 * sets the number, and 1 gives every client a socket of its own. {@link ClientMetrics#snapshot()} shows the
 * kernel's drops for a client's socket.
 *
 * <p>The creator owns them: close them after every client that uses them is closed. A client never closes
 * resources it was given.
 *
 * <p><b>Threads and buffers.</b> Thread-safe. Touches no buffers.
 */
public final class ClientResources implements AutoCloseable {

    private final IoRuntime io;
    private final HandlerPool handlers;
    private final SharedSockets sockets;

    private ClientResources(IoRuntime io, int ioThreads, HandlerPool handlers, int connectionsPerSocket) {
        this.io = io;
        this.handlers = handlers;
        this.sockets = new SharedSockets(io, ioThreads, connectionsPerSocket);
    }

    /**
     * Creates {@code ioThreads} event loops ({@code felix-client-io-*}) and {@code handlerThreads} handler threads
     * ({@code felix-handler-shared-*}); 0 means one per core for either. A UDP socket carries up to 8 connections.
     */
    public static ClientResources create(int ioThreads, int handlerThreads) {
        return create(ioThreads, handlerThreads, SharedSockets.DEFAULT_CONNECTIONS_PER_SOCKET);
    }

    /**
     * As {@link #create(int, int)}, with up to {@code connectionsPerSocket} QUIC connections on one UDP socket (1: a
     * socket per client, no sharing).
     */
    public static ClientResources create(int ioThreads, int handlerThreads, int connectionsPerSocket) {
        if (ioThreads < 0 || handlerThreads < 0) {
            throw new IllegalArgumentException("ioThreads and handlerThreads must be 0 (one per core) or more, were "
                    + ioThreads + " and " + handlerThreads);
        }
        if (connectionsPerSocket < 1) {
            throw new IllegalArgumentException("connectionsPerSocket must be 1 (a socket per client) or more, was "
                    + connectionsPerSocket);
        }
        int cores = Runtime.getRuntime().availableProcessors();
        HandlerPool pool = new HandlerPool(handlerThreads > 0 ? handlerThreads : cores, "felix-handler-shared-");
        int loops = ioThreads > 0 ? ioThreads : cores;
        return new ClientResources(IoRuntime.create(loops, "felix-client-io"), loops, pool, connectionsPerSocket);
    }

    HandlerPool handlers() {
        return handlers;
    }

    SharedSockets sockets() {
        return sockets;
    }

    @Override
    public void close() {
        handlers.close();
        io.close();
    }
}
