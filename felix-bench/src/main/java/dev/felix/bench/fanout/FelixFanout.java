package dev.felix.bench.fanout;

import dev.felix.client.ClientConfig;
import dev.felix.client.ClientResources;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.Gap;
import dev.felix.client.EventView;
import dev.felix.client.EventViewHandler;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.demos.cluster.LocalCluster;
import dev.felix.demos.cluster.NodeProcess;
import dev.felix.wire.ClusterShardStatus;
import java.net.InetSocketAddress;
import dev.felix.transport.ClientTrust;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Felix: a {@code felix server} process started as {@code ./felix server} runs it (its JVM options, every broker
 * default), reached through the Java SDK as an application would: each connection one {@link FelixClient} (one
 * QUIC connection), its subscriptions multiplexed on one session stream and set up with
 * {@link FelixClient#subscribeAsync} (pipelined). The subscriber connections share one {@link ClientResources}
 * (event loops, one per core), as a process holding many connections should; with a thread per connection, this
 * process's hundreds of threads waking per packet cost more CPU than the broker. The handlers are
 * {@link EventViewHandler}s, called on those event loops. The stream is ephemeral with one shard; subscribers take the
 * broker's default queue policy, so a subscriber that falls behind is told what it lost (a gap), never slowed
 * down or silently skipped. With {@code --nodes 3} ({@link #startCluster}) the broker is three node processes and
 * the subscriber connections are spread over them.
 */
final class FelixFanout implements FanoutSystem {

    static final StreamRef STREAM = StreamRef.parse("t1/default/fanout");
    private static final Duration SUBSCRIBE_TIMEOUT = Duration.ofSeconds(120);

    /** The single node, or null for a cluster. */
    private final NodeProcess node;
    /** The cluster ({@code --nodes 3}), or null for a single node. */
    private final LocalCluster cluster;
    private final ClientResources shared = ClientResources.create(0, 0);
    private final List<FelixClient> clients = new ArrayList<>();
    private final List<Subscription> subscriptions = new ArrayList<>();
    private FelixClient publisherClient;
    private Publisher publisher;
    private volatile String publishProblem;

    private FelixFanout(NodeProcess node, LocalCluster cluster) {
        this.node = node;
        this.cluster = cluster;
    }

    /** Starts the broker; {@code settings} are {@code key=value} broker settings ({@code --set}). */
    static FelixFanout start(Path dir, List<String> settings) throws Exception {
        List<String> flags = new ArrayList<>();
        for (String s : settings) {
            flags.add("--set");
            flags.add(s);
        }
        NodeProcess node = NodeProcess.startSingle("fanout", dir.resolve("data"), dir.resolve("logs"),
                NodeProcess.SERVER_JVM, flags);
        FelixFanout f = new FelixFanout(node, null);
        try {
            f.publisherClient = FelixClient.connect(f.config(node.clientAddress()).build());
            f.publisherClient.streams().create(STREAM, StreamSpec.ephemeral(1));
            f.publisher = f.publisherClient.publisher(STREAM);
            return f;
        } catch (Exception | Error e) {
            f.close();
            throw e;
        }
    }

    /**
     * Starts {@code nodes} nodes as a cluster ({@code cluster_relay_subscribe: true}, each run as {@code ./felix
     * server} runs a node) with {@code settings}; the stream's shard gets a leader, the publisher publishes there, and
     * {@link #connect} spreads the subscriber connections round-robin over every node: on the two others they are
     * served through each node's relay (one upstream per node).
     */
    static FelixFanout startCluster(Path dir, int nodes, List<String> settings) throws Exception {
        List<String> flags = new ArrayList<>(List.of("--set", "cluster_relay_subscribe=true"));
        for (String s : settings) {
            flags.add("--set");
            flags.add(s);
        }
        LocalCluster cluster = LocalCluster.start(dir.resolve("cluster"), nodes, NodeProcess.SERVER_JVM, flags);
        FelixFanout f = new FelixFanout(null, cluster);
        try {
            try (FelixClient admin = FelixClient.connect(f.config(cluster.node("n1").clientAddress()).build())) {
                admin.streams().create(STREAM, StreamSpec.ephemeral(1));
            }
            ClusterShardStatus placed = cluster.awaitShard("n1", STREAM.toString(), 0, Duration.ofSeconds(60),
                    s -> "online".equals(s.status()) && s.leader() != null, "the placement of " + STREAM);
            f.publisherClient = FelixClient.connect(f.config(cluster.node(placed.leader()).clientAddress()).build());
            f.publisher = f.publisherClient.publisher(STREAM);
            return f;
        } catch (Exception | Error e) {
            f.close();
            throw e;
        }
    }

    /** A client of a node; the publisher's runs on threads of its own, subscribers' on the shared ones. */
    private ClientConfig.Builder config(InetSocketAddress broker) throws dev.felix.transport.TlsException {
        Path trust = cluster != null ? cluster.caCertificate() : node.certificate();
        return ClientConfig.builder(ClientTrust.certificates(trust)).broker(broker).tenant("t1")
                .requestTimeout(SUBSCRIBE_TIMEOUT);
    }

    @Override
    public List<Long> brokerPids() {
        return cluster != null ? cluster.nodes().stream().map(NodeProcess::pid).toList() : List.of(node.pid());
    }

    @Override
    public boolean jvm() {
        return true;
    }

    @Override
    public void connect(int connections) throws Exception {
        List<InetSocketAddress> nodes = cluster != null
                ? cluster.nodes().stream().map(NodeProcess::clientAddress).toList() : List.of(node.clientAddress());
        for (int i = 0; i < connections; i++) { // round-robin over the nodes
            clients.add(FelixClient.connect(config(nodes.get(i % nodes.size())).resources(shared).build()));
        }
    }

    @Override
    public void subscribe(Deliveries deliveries) throws Exception {
        List<CompletableFuture<Subscription>> pending = new ArrayList<>(deliveries.subscribers());
        for (int i = 0; i < deliveries.subscribers(); i++) {
            int connection = i % clients.size();
            pending.add(clients.get(connection).subscribeAsync(SubscribeOptions.of(STREAM),
                    new Handler(deliveries, i, connection)));
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                .get(SUBSCRIBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        for (CompletableFuture<Subscription> f : pending) {
            subscriptions.add(f.join());
        }
    }

    @Override
    public boolean publish(byte[] message) {
        if (publishProblem != null) {
            return false;
        }
        publisher.publishAsync(message).whenComplete((ack, err) -> {
            if (err != null && publishProblem == null) {
                publishProblem = String.valueOf(err.getCause() != null ? err.getCause() : err);
            }
        });
        return true;
    }

    @Override
    public int lostConnections() {
        return (int) clients.stream().filter(c -> !c.connected()).count();
    }

    @Override
    public String publishProblem() {
        return publishProblem;
    }

    @Override
    public void close() {
        for (FelixClient c : clients) {
            c.close();
        }
        if (publisherClient != null) {
            publisherClient.close();
        }
        if (node != null) {
            node.close();
        }
        if (cluster != null) {
            cluster.close();
        }
        shared.close();
    }

    /**
     * One subscriber: every event and gap goes to the run's {@link Deliveries}. It only counts and records, so it is
     * declared non-blocking and runs on its connection's event loop as events are read (no handler-thread wake-up
     * per delivery; the NATS side's dispatchers are a thread per connection).
     */
    private record Handler(Deliveries deliveries, int sub, int connection) implements EventViewHandler {
        @Override
        public void onEvent(EventView view) {
            deliveries.received(sub, connection, view.payload()); // read in place: no copy per delivery
        }

        @Override
        public void onGap(Gap gap) {
            deliveries.announced(gap.missed());
        }

        @Override
        public void onEnd(FelixClientException cause) {
            if (cause != null) {
                deliveries.ended(sub, cause.getMessage());
            }
        }
    }
}
