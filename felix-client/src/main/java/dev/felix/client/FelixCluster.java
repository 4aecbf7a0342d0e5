package dev.felix.client;

import dev.felix.wire.ErrorCode;
import dev.felix.wire.Message;
import dev.felix.wire.StartPosition;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

/**
 * A client of a Felix cluster: given a bootstrap list of nodes, it keeps one {@link FelixClient} connection
 * per node it needs, sends each shard's publishes and subscriptions to that shard's leader, follows
 * {@code not_leader} redirects, and after a failover resumes subscriptions at their last offset + 1 on the
 * new leader. Retries are paced with full-jitter backoff and bounded by the request timeout
 * ({@link ClientConfig.Builder#requestTimeout}, which should stay longer than the cluster's 5 s quorum
 * window).
 *
 * <pre>{@code
 * try (FelixCluster cluster = FelixCluster.connect(config, List.of(node1, node2, node3))) {
 *     ClusterPublisher pub = cluster.publisher(StreamRef.parse("t1/default/orders"));
 *     PublishAck ack = pub.publish("hello".getBytes());
 *     try (ClusterSubscription sub = cluster.subscribe(StreamRef.parse("t1/default/orders"), 0,
 *             new StartPosition.Earliest())) {
 *         Item item = sub.next(Duration.ofSeconds(5));
 *     }
 * }
 * }</pre>
 *
 * <p>What is retried and what is not: a refusal that proves nothing was written ({@code not_leader},
 * {@code unavailable}, a broker shutting down) is retried on the leader the cluster names. A publish whose
 * outcome is unknown — the connection was lost while it was in flight, or no answer came within the request
 * timeout — is retried too, so it may be stored twice. {@code quorum_timeout} is never retried here: the
 * batch is durable on the leader and may still commit, so whether to send it again is the caller's choice.
 * Every other error is thrown as the broker worded it.
 *
 * <p>Thread-safe; each publisher and subscription is meant for one thread at a time.
 */
public final class FelixCluster implements AutoCloseable {

    /** How long one node may take to answer {@code cluster_status} before the next one is asked. */
    static final long STATUS_TIMEOUT_MILLIS = 2_000;

    private final ClientConfig config;
    private final List<InetSocketAddress> bootstrap;
    private final ClusterRoutes routes = new ClusterRoutes();
    private final Map<InetSocketAddress, FelixClient> clients = new ConcurrentHashMap<>();
    private final Map<InetSocketAddress, Object> connectLocks = new ConcurrentHashMap<>();
    private final ExecutorService asker = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "felix-cluster-status");
        t.setDaemon(true);
        return t;
    });
    private final LongAdder redirects = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder resubscriptions = new LongAdder();
    private volatile InetSocketAddress lastAnswered;
    private volatile boolean closed;

    private FelixCluster(ClientConfig config, List<InetSocketAddress> bootstrap) {
        this.config = config;
        this.bootstrap = bootstrap;
    }

    /**
     * Connects to the cluster through {@code nodes} (any subset of its members) and learns where every shard is
     * led. Throws {@code connection_lost} naming every node tried if none answered.
     */
    public static FelixCluster connect(ClientConfig config, List<InetSocketAddress> nodes) {
        Objects.requireNonNull(config, "config");
        if (nodes == null || nodes.isEmpty()) {
            throw new IllegalArgumentException("a cluster client needs at least one node address to start from");
        }
        FelixCluster cluster = new FelixCluster(config, List.copyOf(nodes));
        try {
            cluster.refresh(true);
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    public ClientConfig config() {
        return config;
    }

    /** A publisher for {@code stream}: each publish goes to the leader of the shard it is for. */
    public ClusterPublisher publisher(StreamRef stream) {
        return new ClusterPublisher(this, stream, shardCount(stream));
    }

    /**
     * Subscribes to shard {@code shard} of {@code stream} on its leader, starting at {@code from}; after a
     * failover the subscription continues at its last offset + 1 on the new leader.
     */
    public ClusterSubscription subscribe(StreamRef stream, int shard, StartPosition from) {
        return subscribe(stream, shard, from, null);
    }

    /**
     * Subscribes to shard {@code shard} of {@code stream} on node {@code via} (one of the cluster's nodes), which
     * relays it from the shard's leader when it does not lead it itself ({@code cluster_relay_subscribe}): spreading
     * subscribers over the nodes spreads the fanout. A node that does not relay answers {@code not_leader}, and the
     * subscription goes to the leader instead, for that try. A {@code resync} from the relay (it lost events it had
     * not delivered) resumes at the offset it names, on {@code via} again; so does a failover.
     *
     * @param via the node to ask first; null for the leader
     */
    public ClusterSubscription subscribe(StreamRef stream, int shard, StartPosition from, InetSocketAddress via) {
        ClusterSubscription s = new ClusterSubscription(this, stream, shard, from, via);
        s.start();
        return s;
    }

    /**
     * Put, get and delete on cache {@code cache}, always on the node that serves it, following redirects and
     * failovers (see {@link ClusterCache}). Opens nothing until the first operation.
     */
    public ClusterCache cache(CacheRef cache) {
        return new ClusterCache(this, cache);
    }

    /**
     * A local copy of cache {@code cache} (or of the keys under {@code prefix}, if not null) that follows the
     * cache to whichever node serves it (see {@link ClusterMirror}). Returns once the first snapshot is applied.
     *
     * @throws FelixClientException as {@link FelixClient#mirror}, or {@code unavailable} when no node serves the
     *                              cache within the request timeout
     */
    public ClusterMirror mirror(CacheRef cache, String prefix) {
        return ClusterMirror.start(this, cache, prefix);
    }

    /** A connection to some node that answers (for administration: streams, caches, cluster status). */
    public FelixClient anyNode() {
        refresh(true);
        return node(lastAnswered);
    }

    /** Publishes and subscribes sent again to the leader a {@code not_leader} refusal named. */
    public long redirects() {
        return redirects.sum();
    }

    /** Attempts repeated after a node was lost, shut down or had no leader to offer. */
    public long retries() {
        return retries.sum();
    }

    /** Subscriptions resumed on another connection or leader after theirs ended. */
    public long resubscriptions() {
        return resubscriptions.sum();
    }

    @Override
    public void close() {
        closed = true;
        for (FelixClient c : List.copyOf(clients.values())) {
            c.close();
        }
        clients.clear();
        asker.shutdownNow();
    }

    // ------------------------------------------------------------------ for publishers and subscriptions

    ClusterRoutes routes() {
        return routes;
    }

    void redirected() {
        redirects.increment();
    }

    void retried() {
        retries.increment();
    }

    void resubscribed() {
        resubscriptions.increment();
    }

    /**
     * Where shard {@code shard} of {@code stream} is led: the remembered route, else what the cluster says now;
     * null when nobody leads it at the moment.
     */
    InetSocketAddress leaderOf(StreamRef stream, int shard) {
        InetSocketAddress known = routes.leader(stream.toString(), shard);
        if (known != null) {
            return known;
        }
        refresh(false);
        return routes.leader(stream.toString(), shard);
    }

    /** Where cache {@code cache} is served: the remembered route, else what the cluster says now; null if nowhere. */
    InetSocketAddress cacheHomeOf(CacheRef cache) {
        String route = ClusterRoutes.cacheRoute(cache.toString());
        InetSocketAddress known = routes.leader(route, 0);
        if (known != null) {
            return known;
        }
        refresh(false);
        return routes.leader(route, 0);
    }

    /** The connection to the node at {@code address}, made on first use and again after it was lost. */
    FelixClient node(InetSocketAddress address) {
        if (closed) {
            throw new FelixClientException(ErrorCode.CONNECTION_LOST, "the cluster client is closed");
        }
        FelixClient c = clients.get(address);
        if (c != null && c.connected()) {
            return c;
        }
        synchronized (connectLocks.computeIfAbsent(address, a -> new Object())) {
            c = clients.get(address);
            if (c != null && c.connected()) {
                return c;
            }
            FelixClient fresh = FelixClient.connect(config.forBroker(address));
            FelixClient old = clients.put(address, fresh);
            if (old != null) {
                old.close();
            }
            if (closed) {
                fresh.close();
                throw new FelixClientException(ErrorCode.CONNECTION_LOST, "the cluster client is closed");
            }
            return fresh;
        }
    }

    /**
     * Asks the nodes, one after another (the last that answered first), for {@code cluster_status} and takes
     * its routes; a node gets {@link #STATUS_TIMEOUT_MILLIS} to answer, so a frozen one only delays this.
     * When {@code mustAnswer}, throws {@code connection_lost} naming each node and why if none answered.
     */
    void refresh(boolean mustAnswer) {
        List<InetSocketAddress> first = new ArrayList<>();
        if (lastAnswered != null) {
            first.add(lastAnswered);
        }
        first.addAll(bootstrap);
        StringBuilder why = new StringBuilder();
        for (InetSocketAddress a : routes.candidates(first)) {
            try {
                Message.ClusterStatusResult status = CompletableFuture.supplyAsync(() -> node(a).cluster().status(), asker)
                        .get(STATUS_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
                routes.update(status);
                lastAnswered = a;
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException e) {
                why.append("; ").append(hostPort(a)).append(": ").append(e.getCause().getMessage());
            } catch (TimeoutException e) {
                why.append("; ").append(hostPort(a)).append(": no answer within ").append(STATUS_TIMEOUT_MILLIS)
                        .append(" ms");
            }
        }
        if (mustAnswer) {
            throw new FelixClientException(ErrorCode.CONNECTION_LOST, "no node of the cluster answered"
                    + (why.length() > 0 ? " (" + why.substring(2) + ")" : ""));
        }
    }

    private int shardCount(StreamRef stream) {
        return anyNode().streams().describe(stream).shards();
    }

    static String hostPort(InetSocketAddress a) {
        return a.getHostString() + ":" + a.getPort();
    }
}
