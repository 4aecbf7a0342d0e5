package dev.felix.client;

import dev.felix.wire.ErrorCode;
import dev.felix.transport.QuicClient;
import dev.felix.transport.TlsException;
import dev.felix.transport.TransportException;
import dev.felix.wire.WirePayload;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A connection to a Felix broker: one QUIC connection (TLS 1.3, ALPN {@code felix/1}) carrying every
 * publisher, subscription and admin request made through it, each on its own stream.
 *
 * <p><b>Threads and buffers.</b> Thread-safe: any thread may open publishers, subscriptions, caches and admin
 * calls, and {@link #close} may be called from any thread. The connection's I/O runs on one event loop, which
 * also completes futures and runs cache-mirror listeners; subscription handlers run on the client's handler
 * threads. Frames are owned by the classes that read and write them ({@code FrameStream},
 * {@code EventStreamReader}, {@code SessionStream}); application code never sees a {@code ByteBuf}.
 *
 * <pre>{@code
 * try (FelixClient client = FelixClient.connect(ClientConfig.builder(ClientTrust.certificates(certPem)).build())) {
 *     Publisher pub = client.publisher(StreamRef.parse("t1/default/demo"));
 *     pub.publish("hello".getBytes());
 *     try (Subscription sub = client.subscribe(SubscribeOptions.of(StreamRef.parse("t1/default/demo")).fromEarliest())) {
 *         Item item = sub.next(Duration.ofSeconds(5));
 *     }
 * }
 * }</pre>
 *
 * <p>Thread-safe. If the connection is lost, every pending request fails and every subscription ends
 * with {@link ErrorCode#CONNECTION_LOST}; nothing waits forever (each request has a timeout).
 */
public final class FelixClient implements AutoCloseable {

    private final ClientConfig config;
    private final QuicClient quic;
    private final AtomicBoolean socketClosed = new AtomicBoolean();
    private final ReceiveBudget receiveBudget;
    private final ClientMetrics metrics;
    private QuicChannel connection;
    private final Map<Long, Subscription> subscriptions = new ConcurrentHashMap<>();
    private final Set<Subscription> starting = ConcurrentHashMap.newKeySet();
    private final Set<Publisher> publishers = ConcurrentHashMap.newKeySet();
    /** Event streams that arrived before their subscription's reply; event-loop confined. */
    private final Map<Long, List<EventStreamReader>> unclaimed = new HashMap<>();
    private final Map<Long, Long> unclaimedSince = new HashMap<>();
    private ScheduledFuture<?> keepAlive;
    /** Whether keep-alives go as DATAGRAM frames (until the broker refuses one); event loop. */
    private boolean datagramKeepAlive = true;
    /** Guarded by this: the multiplexed subscription session and the handler threads, made on first use. */
    private SessionStream session;
    private HandlerDispatcher handlers;
    private volatile FelixClientException lost;
    /** The broker announced its shutdown on some stream (its CONNECTION_CLOSE may still get lost). */
    private volatile FelixClientException shutdownNotice;
    private volatile boolean closed;

    private FelixClient(ClientConfig config, QuicClient quic) {
        this.config = config;
        this.quic = quic;
        this.receiveBudget = new ReceiveBudget(config.receiveBudgetBytes);
        this.metrics = new ClientMetrics(receiveBudget, quic::udpCounters);
    }

    /**
     * Connects; throws {@link FelixClientException}: {@code connection_lost} if the broker is unreachable
     * or its host cannot be resolved, {@code untrusted} if its certificate is not trusted.
     */
    public static FelixClient connect(ClientConfig config) {
        java.net.InetSocketAddress broker = config.broker;
        if (broker.isUnresolved()) {
            broker = new java.net.InetSocketAddress(broker.getHostString(), broker.getPort()); // resolve again now
            if (broker.isUnresolved()) {
                throw new FelixClientException(ErrorCode.CONNECTION_LOST, "cannot resolve the broker host '"
                        + broker.getHostString() + "'");
            }
        }
        QuicClient quic;
        try {
            quic = config.resources != null
                    ? config.resources.sockets().acquire(broker, config.serverName, config.transport, config.trust)
                    : QuicClient.create(broker, config.serverName, config.transport, config.trust, null);
        } catch (TransportException | TlsException e) {
            throw new FelixClientException(ErrorCode.CONNECTION_LOST, e.getMessage(), -1, e);
        }
        FelixClient client = new FelixClient(config, quic);
        String where = broker.getHostString() + ":" + broker.getPort();
        try {
            client.connection = quic.connect(PeerClose.RECORDER, new ChannelInitializer<QuicStreamChannel>() {
                @Override
                protected void initChannel(QuicStreamChannel ch) {
                    ch.pipeline().addLast(ClientFrames.decoder(config.maxFrameBytes), new EventStreamReader(client));
                }
            }).get(config.connectTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            client.closeSocket();
            throw new FelixClientException(ErrorCode.CONNECTION_LOST, "interrupted while connecting");
        } catch (ExecutionException | TimeoutException e) {
            client.closeSocket();
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            if (untrusted(cause)) {
                throw new FelixClientException(ErrorCode.UNTRUSTED, "the broker at " + where + " presented a"
                        + " certificate this client does not trust (" + cause.getMessage() + ")", -1, cause);
            }
            throw new FelixClientException(ErrorCode.CONNECTION_LOST, "could not connect to " + where
                    + ": " + (e instanceof TimeoutException ? "no answer within " + config.connectTimeout.toMillis()
                    + " ms" : String.valueOf(cause.getMessage())), -1, cause);
        }
        client.connection.closeFuture().addListener(f -> client.onConnectionClosed());
        long every = config.keepAlive.toMillis();
        client.keepAlive = client.connection.eventLoop().scheduleAtFixedRate(client::tick, every, every,
                TimeUnit.MILLISECONDS);
        return client;
    }

    /** Whether a failed handshake failed because the peer's certificate was rejected. */
    private static boolean untrusted(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof java.security.cert.CertificateException
                    || String.valueOf(t.getMessage()).contains("CERTIFICATE_VERIFY_FAILED")) {
                return true;
            }
        }
        return false;
    }

    public ClientConfig config() {
        return config;
    }

    /** This client's counters (client-side checkpoints), under their Prometheus names. */
    public ClientMetrics metrics() {
        return metrics;
    }

    /** Payload bytes held now by every receive queue of this client ({@link ClientConfig.Builder#receiveBudgetBytes}). */
    public long receiveBudgetUsedBytes() {
        return receiveBudget.used();
    }

    /** The most payload bytes the receive queues of this client held at once. */
    public long receiveBudgetPeakBytes() {
        return receiveBudget.peak();
    }

    ReceiveBudget receiveBudget() {
        return receiveBudget;
    }

    QuicChannel connection() {
        checkUsable();
        return connection;
    }

    /** A publisher for {@code stream} on its own QUIC stream. */
    public Publisher publisher(StreamRef stream) {
        NonBlockingScope.refuseWait("open a publisher");
        return await(Publisher.open(this, stream), "open a publisher");
    }

    /** Subscribes; returns once the broker confirmed (cursor errors throw with the available offset). */
    public Subscription subscribe(SubscribeOptions options) {
        return subscribe(options, config.receivePolicy);
    }

    /** Subscribes with a receive-queue policy other than the client's (healing reads never drop). */
    Subscription subscribe(SubscribeOptions options, ReceivePolicy receivePolicy) {
        NonBlockingScope.refuseWait("subscribe and wait for the broker (use subscribeAsync)");
        Subscription s = new Subscription(this, options, receivePolicy);
        starting.add(s);
        try {
            return await(s.start(), "subscribe");
        } catch (FelixClientException e) {
            s.close();
            throw e;
        } finally {
            starting.remove(s);
        }
    }

    /**
     * Subscribes and calls {@code handler} for each item, in order, until the subscription ends or is closed.
     * Handlers of every subscription share the client's handler threads
     * ({@link ClientConfig.Builder#handlerThreads}); one subscription's handler runs on one of them at a time. A
     * {@link NonBlockingHandler} runs on the connection's I/O thread instead (no hand-off; it must never wait).
     */
    public Subscription subscribe(SubscribeOptions options, SubscriptionHandler handler) {
        Subscription s = subscribe(options);
        handlers().dispatch(s, handler);
        return s;
    }

    /**
     * Subscribes without waiting for the broker's answer, so a caller can set up many subscriptions at once: on a
     * multiplexed connection they are pipelined on one session stream (thousands in a few round trips, where
     * {@link #subscribe(SubscribeOptions, SubscriptionHandler)} takes one round trip each). The future completes
     * once the broker confirmed, from then on {@code handler} is called as with the blocking form; it fails with
     * the errors {@code subscribe} throws, and with {@link ErrorCode#TIMEOUT} after the request timeout.
     */
    public CompletableFuture<Subscription> subscribeAsync(SubscribeOptions options, SubscriptionHandler handler) {
        Subscription s = new Subscription(this, options, config.receivePolicy);
        starting.add(s);
        CompletableFuture<Subscription> result = new CompletableFuture<>();
        s.start().orTimeout(config.requestTimeout.toMillis(), TimeUnit.MILLISECONDS).whenComplete((ok, err) -> {
            starting.remove(s);
            if (err == null) {
                handlers().dispatch(s, handler);
                result.complete(s);
                return;
            }
            s.close();
            Throwable cause = err instanceof java.util.concurrent.CompletionException && err.getCause() != null
                    ? err.getCause() : err;
            result.completeExceptionally(cause instanceof FelixClientException fe ? fe
                    : cause instanceof TimeoutException ? new FelixClientException(ErrorCode.TIMEOUT,
                            "could not subscribe within " + config.requestTimeout.toMillis() + " ms")
                    : new FelixClientException(ErrorCode.INTERNAL, "could not subscribe: " + cause, -1, cause));
        });
        return result;
    }

    /** The shared handler threads, started on first use. */
    private HandlerDispatcher handlers() {
        synchronized (this) {
            if (handlers == null) {
                handlers = config.resources != null ? new HandlerDispatcher(config.resources.handlers())
                        : new HandlerDispatcher(config.handlerThreads);
            }
            return handlers;
        }
    }

    /** The multiplexed subscription session of this connection, opened on first use (or after it ended). */
    SessionStream session() {
        checkUsable();
        synchronized (this) {
            if (session == null || session.ended()) {
                session = SessionStream.open(this, connection);
            }
            return session;
        }
    }

    /** A session stream ended: the next subscribe opens a new one. */
    void sessionEnded(SessionStream ended) {
        synchronized (this) {
            if (session == ended) {
                session = null;
            }
        }
    }

    /** Put / get / delete on {@code cache} over its own QUIC stream. */
    public Cache cache(CacheRef cache) {
        NonBlockingScope.refuseWait("open a cache stream");
        return await(Cache.open(this, cache), "open a cache stream");
    }

    /**
     * A local copy of {@code cache} (or of the keys starting with {@code prefix}, if not null) that follows
     * every change and converges after any stall; returns once the first snapshot is applied.
     */
    public CacheMirror mirror(CacheRef cache, String prefix) {
        return CacheMirror.start(this, cache, prefix, null);
    }

    /** Like {@link #mirror(CacheRef, String)} with a smaller broker-side watch queue ({@code queueEvents}). */
    public CacheMirror mirror(CacheRef cache, String prefix, int queueEvents) {
        return CacheMirror.start(this, cache, prefix, queueEvents);
    }

    /** Cache administration. */
    public CacheAdmin caches() {
        return new CacheAdmin(this);
    }

    /** Stream administration. */
    public StreamAdmin streams() {
        return new StreamAdmin(this);
    }

    /** Cluster status (a clustered broker only). */
    public ClusterAdmin cluster() {
        return new ClusterAdmin(this);
    }

    /** Whether the connection is up. */
    public boolean connected() {
        return lost == null && !closed && connection.isActive();
    }

    /**
     * Closes every publisher (waiting at most one request timeout in all for outstanding
     * acknowledgements) and subscription, then the connection.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        // One deadline for all publishers: closing never waits longer than one request timeout.
        long deadline = System.nanoTime() + InflightBudget.nanos(config.requestTimeout);
        for (Publisher p : List.copyOf(publishers)) {
            p.closeBy(deadline);
        }
        closed = true;
        for (Subscription s : List.copyOf(subscriptions.values())) {
            s.close();
        }
        if (keepAlive != null) {
            keepAlive.cancel(false);
        }
        // An application CONNECTION_CLOSE (code 0, "client closed"): the broker forgets this connection and its
        // subscriptions as soon as it arrives, instead of at its idle timeout. The datagram carrying it is given
        // a moment to leave before the socket closes (QuicClient.close).
        PeerClose.closingHere(connection);
        connection.close(true, 0, io.netty.buffer.Unpooled.copiedBuffer(PeerClose.CLIENT_CLOSED,
                java.nio.charset.StandardCharsets.UTF_8)).awaitUninterruptibly(2, TimeUnit.SECONDS);
        closeSocket();
        synchronized (this) {
            if (handlers != null) {
                handlers.close();
            }
        }
    }

    // ------------------------------------------------------------------ internals

    /** Closes this client's UDP socket, or gives it back when it is shared ({@link ClientResources}). */
    private void closeSocket() {
        if (!socketClosed.compareAndSet(false, true)) {
            return; // a shared socket counts each client once
        }
        if (config.resources != null) {
            config.resources.sockets().release(quic);
        } else {
            quic.close();
        }
    }

    void register(Publisher publisher) {
        publishers.add(publisher);
    }

    /** A subscription got its id: it takes the event streams already received for it. Event loop. */
    void claim(Subscription subscription, long id) {
        subscriptions.put(id, subscription);
        List<EventStreamReader> waiting = unclaimed.remove(id);
        unclaimedSince.remove(id);
        if (waiting != null) {
            waiting.forEach(subscription::attach);
        }
    }

    /** An event stream announced itself. Event loop. */
    void routeEventStream(long id, EventStreamReader reader) {
        Subscription s = subscriptions.get(id);
        if (s != null) {
            s.attach(reader);
            return;
        }
        unclaimed.computeIfAbsent(id, k -> new ArrayList<>()).add(reader);
        unclaimedSince.putIfAbsent(id, System.nanoTime());
    }

    void forget(Subscription subscription) {
        long id = subscription.id();
        // By key: a scan of the values made closing n subscriptions cost n^2.
        if (id < 0 || !subscriptions.remove(id, subscription)) {
            subscriptions.values().remove(subscription); // not claimed under its id (never started): rare
        }
    }

    private void tick() {
        // Event streams nobody claimed within the request timeout belong to failed subscribes.
        long now = System.nanoTime();
        for (Long id : List.copyOf(unclaimedSince.keySet())) {
            if (now - unclaimedSince.get(id) > InflightBudget.nanos(config.requestTimeout)) {
                unclaimedSince.remove(id);
                List<EventStreamReader> readers = unclaimed.remove(id);
                if (readers != null) {
                    readers.forEach(EventStreamReader::discard);
                }
            }
        }
        for (Publisher p : publishers) {
            p.sweepTimeouts();
        }
        keepAlive();
    }

    /**
     * Keeps the connection alive. A one-byte QUIC DATAGRAM frame is one ack-eliciting packet; the broker's QUIC
     * stack acknowledges it without the broker doing anything else, and that acknowledgement restarts both
     * sides' idle timers (a broker that vanished sends none, so the idle timeout still notices it). The former
     * keep-alive, an authenticated round trip on a fresh stream, cost the broker a stream, an auth and about ten
     * packets per client every interval: 100 idle mirrors kept it busy (issue 12 item 5). A broker that did not
     * negotiate DATAGRAM frames still gets that round trip. Event loop.
     */
    private void keepAlive() {
        if (datagramKeepAlive) {
            connection.writeAndFlush(Unpooled.wrappedBuffer(KEEP_ALIVE_DATAGRAM)).addListener(f -> {
                if (!f.isSuccess()) {
                    datagramKeepAlive = false; // the broker does not take DATAGRAM frames: use a stream
                    streamKeepAlive();
                }
            });
        } else {
            streamKeepAlive();
        }
    }

    /** The keep-alive's one byte (a datagram needs at least one; the broker ignores its content). */
    private static final byte[] KEEP_ALIVE_DATAGRAM = {0};

    private void streamKeepAlive() {
        FrameStream.open(connection, config, new FrameStream.Listener() {
            @Override
            public void onPayload(WirePayload payload) {
            }

            @Override
            public void onClosed(FelixClientException cause) {
            }
        }).thenAccept(FrameStream::close);
    }

    private void onConnectionClosed() {
        FelixClientException e = connectionEnded();
        lost = e;
        if (keepAlive != null) {
            keepAlive.cancel(false);
        }
        for (Subscription s : List.copyOf(subscriptions.values())) {
            s.connectionLost(e);
        }
        for (Subscription s : List.copyOf(starting)) {
            s.connectionLost(e);
        }
    }

    /** Why the connection ended, as the error everything that needed it fails with. */
    private FelixClientException connectionEnded() {
        if (closed) {
            return new FelixClientException(ErrorCode.CONNECTION_LOST, "the client was closed");
        }
        FelixClientException byBroker = closedByBroker();
        return byBroker != null ? byBroker : new FelixClientException(ErrorCode.CONNECTION_LOST,
                "the connection to " + config.broker.getHostString() + ":" + config.broker.getPort() + " was lost"
                        + (connection.isTimedOut() ? " (transport: no packet from the broker within the idle timeout)"
                                : " (transport)"));
    }

    /**
     * The broker's reason for closing the connection as an error: the reason of its CONNECTION_CLOSE,
     * or, if that datagram did not arrive, that it announced its shutdown on a stream before; null if
     * neither.
     */
    FelixClientException closedByBroker() {
        FelixClientException byClose = PeerClose.cause(connection);
        if (byClose != null) {
            return byClose;
        }
        FelixClientException notice = shutdownNotice;
        return notice == null ? null : new FelixClientException(ErrorCode.BROKER_SHUTTING_DOWN, "the broker at "
                + config.broker.getHostString() + ":" + config.broker.getPort() + " is shutting down and closed the"
                + " connection; reconnect once it is back");
    }

    /** A stream of this connection reported {@code e}; remembers a shutdown announcement. Any thread. */
    void noticed(FelixClientException e) {
        if (e != null && e.code() == ErrorCode.BROKER_SHUTTING_DOWN) {
            shutdownNotice = e;
        }
    }

    private void checkUsable() {
        if (closed) {
            throw new FelixClientException(ErrorCode.CONNECTION_LOST, "the client is closed");
        }
        FelixClientException e = lost;
        if (e != null) {
            throw e;
        }
    }

    private <T> T await(CompletableFuture<T> future, String what) {
        try {
            return future.get(config.requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FelixClientException(ErrorCode.UNAVAILABLE, "interrupted while trying to " + what);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof FelixClientException fe ? fe
                    : new FelixClientException(ErrorCode.INTERNAL, "could not " + what + ": " + e.getCause(), -1,
                            e.getCause());
        } catch (TimeoutException e) {
            throw new FelixClientException(ErrorCode.TIMEOUT, "could not " + what + " within "
                    + config.requestTimeout.toMillis() + " ms");
        }
    }
}
