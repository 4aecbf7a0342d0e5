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
 * 8 QUIC connections ({@link SharedSockets}): one wakeup reads the datagrams of every connection on
 * it and their transport acknowledgements leave in one system call, where a socket per connection paid a call
 * per datagram each way. Each client keeps its own connection, streams and flow control.
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

    private ClientResources(IoRuntime io, int ioThreads, HandlerPool handlers) {
        this.io = io;
        this.handlers = handlers;
        this.sockets = new SharedSockets(io, ioThreads);
    }

    /**
     * Creates {@code ioThreads} event loops ({@code felix-client-io-*}) and {@code handlerThreads} handler threads
     * ({@code felix-handler-shared-*}); 0 means one per core for either.
     */
    public static ClientResources create(int ioThreads, int handlerThreads) {
        if (ioThreads < 0 || handlerThreads < 0) {
            throw new IllegalArgumentException("ioThreads and handlerThreads must be 0 (one per core) or more, were "
                    + ioThreads + " and " + handlerThreads);
        }
        int cores = Runtime.getRuntime().availableProcessors();
        HandlerPool pool = new HandlerPool(handlerThreads > 0 ? handlerThreads : cores, "felix-handler-shared-");
        int loops = ioThreads > 0 ? ioThreads : cores;
        return new ClientResources(IoRuntime.create(loops, "felix-client-io"), loops, pool);
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
