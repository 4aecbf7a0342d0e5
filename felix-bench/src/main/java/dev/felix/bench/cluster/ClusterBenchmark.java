package dev.felix.bench.cluster;

import dev.felix.bench.common.CpuClock;
import dev.felix.bench.common.NamedValues;
import dev.felix.bench.common.PeerProcess;
import dev.felix.bench.common.Results;
import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.PublishAck;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.demos.cluster.LocalCluster;
import dev.felix.demos.cluster.NodeProcess;
import dev.felix.transport.ClientTrust;
import dev.felix.wire.ClusterShardStatus;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import org.HdrHistogram.Histogram;

/**
 * {@code felix bench cluster}: publish latency (one acknowledged publish at a time) and throughput (a window
 * of acknowledged publishes in flight) of a durable stream replicated three ways with {@code leader} and with
 * {@code quorum} consistency, beside a single node and NATS JetStream with three replicas (three
 * {@code nats-server} processes), every broker a real process on loopback; then failover time: the leader of
 * a {@code quorum} stream SIGKILLed, measured until the first publish a survivor acknowledges, over many
 * kills. Every acknowledgement is checked: offsets (JetStream sequence numbers) consecutive, none missing.
 */
public final class ClusterBenchmark {

    /** What to run. */
    public record Options(int latencyMessages, int throughputMessages, int window, int payloadBytes, int kills,
                          boolean nats, Path resultsDir, int warmupMessages, boolean killRaftLeader) {

        /** As the canonical constructor, with the default warm-up, killing stream leaders wherever Raft leads. */
        public Options(int latencyMessages, int throughputMessages, int window, int payloadBytes, int kills,
                boolean nats, Path resultsDir) {
            this(latencyMessages, throughputMessages, window, payloadBytes, kills, nats, resultsDir, 5000, false);
        }

        public static String usage() {
            return """
                  --quick           300 latency and 3,000 throughput publishes per target, 5 kills (about 2 min)
                  --latency=N       acknowledged publishes one at a time per target (default 2000)
                  --throughput=N    publishes with a window in flight per target (default 20000)
                  --window=N        publishes in flight in the throughput phase (default 256)
                  --payload=N       payload bytes (default 256)
                  --kills=N         leader SIGKILLs for the failover distribution (default 20; 0 skips it)
                  --kill-raft-leader
                                    each kill takes the node that leads the metadata Raft group, and a
                                    quorum stream it leads (four such streams are placed so that one is):
                                    failover when the cluster also loses the node that decides failovers
                  --warmup=N        unrecorded publishes per target before the timed phases, 64 in flight,
                                    acknowledgements checked (default 5000; --quick 2000): the JVM nodes run
                                    their publish path compiled, as a long-running broker does
                  --no-nats         skip NATS JetStream R3
                  --results=DIR     where JSON and text results go (default bench/results)
                A full run takes about 4 minutes here (the 20 kills about 2; each waits for the killed node to
                rejoin and catch up). Run it alone: a build beside it makes the figures noise.""";
        }

        public static Options parse(String[] args) {
            int latency = 2000;
            int throughput = 20_000;
            int window = 256;
            int payload = 256;
            int kills = 20;
            int warmup = 5000;
            boolean nats = true;
            boolean killRaftLeader = false;
            Path results = Path.of("bench/results");
            if (java.util.Arrays.asList(args).contains("--quick")) { // smaller defaults; explicit values still win
                latency = 300;
                throughput = 3000;
                kills = 5;
                warmup = 2000;
            }
            for (String a : args) {
                String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
                String value = a.contains("=") ? a.substring(a.indexOf('=') + 1) : null;
                switch (name) {
                    case "--quick" -> {
                        // applied above, before the explicit values
                    }
                    case "--latency" -> latency = NamedValues.positive(name, value);
                    case "--throughput" -> throughput = NamedValues.positive(name, value);
                    case "--window" -> window = NamedValues.positive(name, value);
                    case "--payload" -> payload = NamedValues.positive(name, value);
                    case "--kills" -> kills = "0".equals(value) ? 0 : NamedValues.positive(name, value);
                    case "--warmup" -> warmup = "0".equals(value) ? 0 : NamedValues.positive(name, value);
                    case "--no-nats" -> nats = false;
                    case "--kill-raft-leader" -> killRaftLeader = true;
                    case "--results" -> results = Path.of(NamedValues.require(name, value));
                    default -> throw new IllegalArgumentException("unknown option '" + a + "'");
                }
            }
            if (payload < 8) {
                throw new IllegalArgumentException("--payload must be at least 8 (the sequence number), not " + payload);
            }
            return new Options(latency, throughput, window, payload, kills, nats, results, warmup,
                    killRaftLeader);
        }


    }

    /** One target's figures; latencies in microseconds. */
    record Row(String target, long p50, long p99, long p999, long max, double perSecond, long checked, String note) {
    }

    private final Options options;
    private final PrintStream out;
    private final StringBuilder text = new StringBuilder();

    private ClusterBenchmark(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    /** Runs everything, prints the tables, writes the results; returns whether every check held. */
    public static boolean run(Options options, PrintStream out) throws Exception {
        return new ClusterBenchmark(options, out).run();
    }

    private void say(String line) {
        out.println(line);
        text.append(line).append('\n');
    }

    private boolean run() throws Exception {
        Path dir = Files.createTempDirectory("felix-bench-cluster");
        List<Row> rows = new ArrayList<>();
        List<Failover> failovers = new ArrayList<>();
        boolean ok = true;
        say("felix bench cluster: " + options.warmupMessages() + " unrecorded warm-up publishes, then "
                + options.latencyMessages() + " publishes one at a time, "
                + options.throughputMessages() + " with " + options.window() + " in flight, " + options.payloadBytes()
                + " B each; durable streams, fsync periodic (JetStream's default also syncs periodically)");
        say("load before the run: " + CpuClock.loadAverage());

        say("-- felix, single node");
        // Every node runs as ./felix server runs it (its collector and heap), not as the tests run theirs.
        try (NodeProcess single = NodeProcess.startSingle("single", dir.resolve("single"), dir.resolve("logs"),
                NodeProcess.SERVER_JVM, List.of())) {
            try (FelixClient c = FelixClient.connect(config(ClientTrust.certificates(single.certificate()),
                    single.clientAddress()))) {
                StreamRef ref = StreamRef.parse("t1/default/bench-single");
                c.streams().create(ref, new StreamSpec(1, true, "periodic", null, null));
                rows.add(measureFelix("felix single node", c, ref));
            }
        }

        say("-- felix, three nodes");
        try (LocalCluster cluster = LocalCluster.start(dir.resolve("cluster"), 3, NodeProcess.SERVER_JVM, List.of())) {
            for (String consistency : List.of("leader", "quorum")) {
                String name = "t1/default/bench-" + consistency;
                StreamRef ref = StreamRef.parse(name);
                try (FelixClient c = cluster.connect("n1")) {
                    c.streams().create(ref, new StreamSpec(1, true, "periodic", null, null).replicated(consistency, 3));
                }
                ClusterShardStatus placed = cluster.awaitShard("n1", name, 0, Duration.ofSeconds(30),
                        s -> "online".equals(s.status()), "the placement of " + name);
                try (FelixClient c = cluster.connect(placed.leader())) {
                    rows.add(measureFelix("felix 3 nodes, " + consistency, c, ref));
                }
            }
            if (options.kills() > 0) {
                List<StreamRef> probed = new ArrayList<>(List.of(StreamRef.parse("t1/default/bench-quorum")));
                if (options.killRaftLeader()) {
                    // Placement spreads leaderships over the nodes, so one of four streams is led by the Raft leader
                    // (when none is, that kill takes bench-quorum's leader and says so).
                    for (int i = 1; i <= 3; i++) {
                        probed.add(createFailoverStream(cluster, i));
                    }
                }
                say("-- failover: SIGKILL the quorum leader " + options.kills() + " times" + (options.killRaftLeader()
                        ? ", each time the one that also leads the metadata Raft group" : ""));
                failovers = measureFailovers(cluster, probed);
            }
        }

        if (options.nats() && PeerProcess.which("nats-server").isPresent()) {
            say("-- nats jetstream, three nodes, R3");
            rows.add(measureJetStream(dir.resolve("nats")));
        } else if (options.nats()) {
            say("-- nats jetstream R3: skipped, nats-server is not installed (bench/peers/install.sh)");
        }

        say("");
        say(String.format("%-26s %9s %9s %9s %9s %12s %9s  %s", "target", "p50 µs", "p99 µs", "p999 µs", "max µs",
                "msgs/s", "checked", "note"));
        for (Row r : rows) {
            say(String.format("%-26s %9d %9d %9d %9d %12.0f %9d  %s", r.target(), r.p50(), r.p99(), r.p999(), r.max(),
                    r.perSecond(), r.checked(), r.note()));
            ok &= r.note().isEmpty();
        }
        Map<String, Object> failover = new LinkedHashMap<>();
        if (!failovers.isEmpty()) {
            List<Long> sorted = failovers.stream().map(Failover::millis).sorted().toList();
            failover.put("kills", sorted.size());
            failover.put("p50_ms", percentile(sorted, 50));
            failover.put("p99_ms", percentile(sorted, 99));
            failover.put("max_ms", sorted.get(sorted.size() - 1));
            failover.put("all_ms", failovers.stream().map(Failover::millis).toList());
            failover.put("raft_leader_too", failovers.stream().map(Failover::raftLeader).toList());
            say("");
            say(String.format("failover (leader SIGKILL -> first publish a survivor acknowledged), %d kills: p50 %d ms,"
                    + " p99 %d ms, max %d ms", sorted.size(), percentile(sorted, 50), percentile(sorted, 99),
                    sorted.get(sorted.size() - 1)));
            for (boolean raft : new boolean[] {true, false}) {
                List<Long> group = failovers.stream().filter(f -> f.raftLeader() == raft).map(Failover::millis)
                        .sorted().toList();
                if (!group.isEmpty()) {
                    say(String.format("  of which the killed node %s the Raft leader, %d kills: p50 %d ms, max %d ms",
                            raft ? "was also" : "was not", group.size(), percentile(group, 50),
                            group.get(group.size() - 1)));
                }
            }
        }
        say("load after the run: " + CpuClock.loadAverage());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("options", options.toString());
        List<Map<String, Object>> table = new ArrayList<>();
        for (Row r : rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("target", r.target());
            m.put("p50_us", r.p50());
            m.put("p99_us", r.p99());
            m.put("p999_us", r.p999());
            m.put("max_us", r.max());
            m.put("msgs_per_second", r.perSecond());
            m.put("checked", r.checked());
            m.put("note", r.note());
            table.add(m);
        }
        result.put("targets", table);
        result.put("failover", failover);
        Path json = Results.write(options.resultsDir(), "cluster", result);
        Results.writeText(json, text.toString());
        say("results: " + json);
        return ok;
    }

    private ClientConfig config(ClientTrust trust, InetSocketAddress broker) {
        return ClientConfig.builder(trust).broker(broker).tenant("t1").requestTimeout(Duration.ofSeconds(30)).build();
    }

    private byte[] payload(long seq) {
        byte[] p = new byte[options.payloadBytes()];
        ByteBuffer.wrap(p).putLong(seq);
        return p;
    }

    /** Latency one at a time, then throughput with a window; every ack's offset checked consecutive. */
    private Row measureFelix(String label, FelixClient client, StreamRef ref) throws Exception {
        Publisher publisher = client.publisher(ref);
        long first = publishRetrying(publisher, payload(0)); // the first may wait for the stream's leader
        return measure(label, first + 1, seq -> publisher.publishAsync(payload(seq)).thenApply(PublishAck::firstOffset));
    }

    private static long publishRetrying(Publisher publisher, byte[] payload) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return publisher.publish(payload).firstOffset();
            } catch (FelixClientException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100); // the shard is still opening on its leader: try again shortly
            }
        }
    }

    /**
     * The two phases against {@code publish} (seq -> the position the broker acknowledged it at), which must
     * number acknowledgements consecutively from {@code next}.
     */
    private Row measure(String label, long next, LongFunction<CompletableFuture<Long>> publish) throws Exception {
        Histogram latency = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
        List<String> problems = new ArrayList<>();
        long checked = warmUp(next, publish, problems);
        long expected = next + checked;
        for (int i = 0; i < options.latencyMessages(); i++) {
            long t0 = System.nanoTime();
            long at = publish.apply(expected).get(30, TimeUnit.SECONDS);
            latency.recordValue(Math.max(1, (System.nanoTime() - t0) / 1000));
            if (at != expected) {
                problems.add("ack at " + at + ", expected " + expected);
            }
            expected++;
            checked++;
        }
        Semaphore window = new Semaphore(options.window());
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        long base = expected;
        long[] seen = new long[options.throughputMessages()];
        long t0 = System.nanoTime();
        for (int i = 0; i < options.throughputMessages(); i++) {
            window.acquire();
            int slot = i;
            publish.apply(base + i).whenComplete((at, e) -> {
                if (e != null) {
                    failed.incrementAndGet();
                } else {
                    seen[slot] = at;
                    acked.incrementAndGet();
                }
                window.release();
            });
        }
        window.acquire(options.window());
        double seconds = (System.nanoTime() - t0) / 1e9;
        java.util.Arrays.sort(seen);
        for (int i = 0; i < seen.length; i++) {
            if (seen[i] != base + i) {
                problems.add("throughput acks are not " + base + ".." + (base + seen.length - 1) + " (at " + i + ": "
                        + seen[i] + ")");
                break;
            }
        }
        checked += acked.get();
        if (failed.get() > 0) {
            problems.add(failed.get() + " publish(es) failed");
        }
        Row row = new Row(label, latency.getValueAtPercentile(50), latency.getValueAtPercentile(99),
                latency.getValueAtPercentile(99.9), latency.getMaxValue(), acked.get() / seconds, checked,
                problems.isEmpty() ? "" : String.join("; ", problems.subList(0, Math.min(3, problems.size()))));
        say(String.format("   %s: p50 %d µs, p99 %d µs, %.0f msgs/s%s", label, row.p50(), row.p99(), row.perSecond(),
                row.note().isEmpty() ? "" : " — " + row.note()));
        return row;
    }

    /**
     * Unrecorded publishes, {@value #WARMUP_WINDOW} in flight, each acknowledgement checked at its position: the
     * same code paths as the timed phases, run until compiled. Returns how many were acknowledged.
     */
    private long warmUp(long next, LongFunction<CompletableFuture<Long>> publish, List<String> problems)
            throws Exception {
        int n = options.warmupMessages();
        if (n == 0) {
            return 0;
        }
        Semaphore window = new Semaphore(WARMUP_WINDOW);
        long[] seen = new long[n];
        AtomicLong failed = new AtomicLong();
        for (int i = 0; i < n; i++) {
            window.acquire();
            int slot = i;
            publish.apply(next + i).whenComplete((at, e) -> {
                if (e != null) {
                    failed.incrementAndGet();
                } else {
                    seen[slot] = at;
                }
                window.release();
            });
        }
        window.acquire(WARMUP_WINDOW);
        java.util.Arrays.sort(seen);
        for (int i = 0; i < n; i++) {
            if (seen[i] != next + i) {
                problems.add("warm-up acks are not " + next + ".." + (next + n - 1) + " (at " + i + ": " + seen[i] + ")");
                break;
            }
        }
        if (failed.get() > 0) {
            problems.add(failed.get() + " warm-up publish(es) failed");
        }
        return n;
    }

    private static final int WARMUP_WINDOW = 64;

    /**
     * One failover: milliseconds from the SIGKILL to the first acknowledged publish, and whether the killed node also
     * led the metadata Raft group (its successor must then be elected before anything is decided).
     */
    record Failover(long millis, boolean raftLeader) {
    }

    /**
     * SIGKILL a stream's leader; time until a survivor acknowledges a publish to that stream; restart; again. The
     * stream is the first of {@code streams}, or with {@link Options#killRaftLeader()} the first led by the node
     * that leads the metadata Raft group.
     */
    private List<Failover> measureFailovers(LocalCluster cluster, List<StreamRef> streams) throws Exception {
        List<Failover> times = new ArrayList<>();
        for (int k = 0; k < options.kills(); k++) {
            Map<StreamRef, String> leaders = new LinkedHashMap<>();
            for (StreamRef r : streams) { // every stream online and caught up before each kill
                leaders.put(r, awaitOnlineAndCaughtUp(cluster, r.toString()).leader());
            }
            StreamRef ref = streams.get(0);
            if (options.killRaftLeader()) {
                StreamRef led = ledByTheRaftLeader(cluster, streams, leaders);
                ref = led != null ? led : ref;
            }
            String leader = leaders.get(ref);
            List<NodeProcess> survivors = cluster.nodes().stream().filter(n -> !n.id().equals(leader)).toList();
            List<FelixClient> clients = new ArrayList<>();
            List<Publisher> publishers = new ArrayList<>();
            try {
                for (NodeProcess n : survivors) {
                    FelixClient c = cluster.connect(n.id());
                    clients.add(c);
                    publishers.add(c.publisher(ref));
                }
                boolean raftLeader = cluster.node(leader).saysItLeadsMetadata();
                long t0 = System.nanoTime();
                cluster.node(leader).kill();
                long took = -1;
                while (took < 0 && System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(60)) {
                    for (Publisher p : publishers) {
                        try {
                            p.publishAsync(payload(-1)).get(1, TimeUnit.SECONDS);
                            took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                            break;
                        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                            // not the leader yet (not_leader, unavailable) or no answer: the next survivor
                        }
                    }
                    if (took < 0) {
                        Thread.sleep(20); // pacing the probe
                    }
                }
                if (took < 0) {
                    say("   kill " + (k + 1) + ": no survivor acknowledged a publish within 60 s");
                } else {
                    times.add(new Failover(took, raftLeader));
                    say("   kill " + (k + 1) + " (" + leader + (raftLeader ? ", also the Raft leader" : "") + ", "
                            + ref.stream() + "): " + took + " ms");
                }
            } finally {
                clients.forEach(FelixClient::close);
            }
            cluster.restart(List.of(leader));
        }
        return times;
    }

    /** Streams the failover phase may place in all with {@link Options#killRaftLeader()}. */
    private static final int MAX_FAILOVER_STREAMS = 12;

    /**
     * The first of {@code streams} whose leader leads the metadata Raft group. When none is (a node restarted after a
     * kill leads no stream until one is placed on it, and it may be elected), new quorum streams are created, up to
     * three per kill and {@value #MAX_FAILOVER_STREAMS} in all (every one is awaited before each kill): placement gives
     * a new stream's leadership to the node leading fewest. Null when that fails too.
     */
    private StreamRef ledByTheRaftLeader(LocalCluster cluster, List<StreamRef> streams,
                                         Map<StreamRef, String> leaders) throws Exception {
        for (int attempt = 0; attempt <= 3; attempt++) {
            for (StreamRef r : streams) {
                if (cluster.node(leaders.get(r)).saysItLeadsMetadata()) {
                    return r;
                }
            }
            if (attempt < 3 && streams.size() < MAX_FAILOVER_STREAMS) {
                StreamRef r = createFailoverStream(cluster, streams.size());
                streams.add(r);
                leaders.put(r, awaitOnlineAndCaughtUp(cluster, r.toString()).leader());
            }
        }
        return null;
    }

    /** Creates {@code bench-failover-<number>}, a quorum stream of three replicas like {@code bench-quorum}. */
    private static StreamRef createFailoverStream(LocalCluster cluster, int number) throws Exception {
        StreamRef r = StreamRef.parse("t1/default/bench-failover-" + number);
        try (FelixClient c = cluster.connect(cluster.nodes().get(0).id())) {
            c.streams().create(r, new StreamSpec(1, true, "periodic", null, null).replicated("quorum", 3));
        }
        return r;
    }

    private ClusterShardStatus awaitOnlineAndCaughtUp(LocalCluster cluster, String name) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            for (NodeProcess n : cluster.nodes()) {
                try {
                    ClusterShardStatus s = cluster.shard(n.id(), name, 0);
                    if (s != null && "online".equals(s.status()) && n.id().equals(s.leader()) && s.lag() != null
                            && s.lag().size() == 2 && s.lag().stream().allMatch(l -> l.records() == 0)
                            && cluster.status(n.id()).nodes().stream().allMatch(x -> "up".equals(x.status()))) {
                        return s;
                    }
                } catch (RuntimeException e) {
                    // that node is starting: ask the next
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(name + " did not get a caught-up leader within 120 s");
            }
            Thread.sleep(200); // polling other processes' view
        }
    }

    /** Three nats-server processes with JetStream, a file stream with three replicas. */
    private Row measureJetStream(Path dir) throws Exception {
        Path binary = PeerProcess.which("nats-server").orElseThrow();
        int[] client = {PeerProcess.freePort(), PeerProcess.freePort(), PeerProcess.freePort()};
        int[] route = {PeerProcess.freePort(), PeerProcess.freePort(), PeerProcess.freePort()};
        List<PeerProcess> servers = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                List<String> routes = new ArrayList<>();
                for (int j = 0; j < 3; j++) {
                    if (j != i) {
                        routes.add("nats://127.0.0.1:" + route[j]);
                    }
                }
                Path d = dir.resolve("n" + (i + 1));
                Files.createDirectories(d);
                servers.add(PeerProcess.start("nats-n" + (i + 1), List.of(binary.toString(), "-a", "127.0.0.1", "-p",
                        Integer.toString(client[i]), "-n", "n" + (i + 1), "--cluster_name", "bench", "--cluster",
                        "nats://127.0.0.1:" + route[i], "--routes", String.join(",", routes), "-js", "-sd",
                        d.resolve("js").toString()), client[i], d, Duration.ofSeconds(15)));
            }
            io.nats.client.Options natsOptions = new io.nats.client.Options.Builder()
                    .servers(new String[] {"nats://127.0.0.1:" + client[0], "nats://127.0.0.1:" + client[1],
                            "nats://127.0.0.1:" + client[2]})
                    .errorListener(new io.nats.client.ErrorListener() {
                    })
                    .build();
            try (Connection c = Nats.connect(natsOptions)) {
                JetStreamManagement jsm = c.jetStreamManagement();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (true) {
                    try {
                        jsm.addStream(StreamConfiguration.builder().name("bench").subjects("bench")
                                .storageType(StorageType.File).replicas(3).build());
                        break;
                    } catch (Exception e) {
                        if (System.nanoTime() > deadline) {
                            throw new IllegalStateException("JetStream did not create an R3 stream within 60 s: " + e);
                        }
                        Thread.sleep(250); // the JetStream meta group is still electing its leader
                    }
                }
                JetStream js = c.jetStream();
                long first = js.publish("bench", payload(0)).getSeqno();
                return measure("nats jetstream 3 nodes, R3", first + 1,
                        seq -> js.publishAsync("bench", payload(seq)).thenApply(io.nats.client.api.PublishAck::getSeqno));
            }
        } finally {
            servers.forEach(PeerProcess::close);
        }
    }

    private static long percentile(List<Long> sorted, int p) {
        int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
    }


}
