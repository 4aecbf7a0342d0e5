package dev.felix.demos.cluster;

import dev.felix.client.ClientConfig;
import dev.felix.client.ClientResources;
import dev.felix.client.FelixClient;
import dev.felix.client.ReceivePolicy;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.transport.ClientTrust;
import dev.felix.wire.ClusterShardStatus;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code felix demo cluster-relay-load}: three real node processes with {@code cluster_relay_subscribe: true} (and a
 * short relay deadline and small worker queues, so relays fall behind quickly), one durable and one ephemeral stream
 * of one shard each, one publisher per stream on its leader, and subscribers spread over the three nodes, most on
 * the nodes that do not lead their stream (served through the relay). Some negotiate gap notices (the SDK), some do
 * not ({@link PlainSubscriber}: closed with {@code resync} on a relay loss), some are slowed (a handler that sleeps
 * per event, so a rate above what it can take makes it stall). The publish rate is raised step by step.
 *
 * <p>A plain subscriber closed with {@code resync} subscribes again from the offset the error names (or from
 * its own cursor, if the error names a later offset: see {@link SubscriberLedger#resync}), after a full-jitter
 * backoff, on the same node; if that node answers {@code not_leader} (a relay serves only {@code latest}
 * today) it subscribes on the leader the error names. A resubscribe refused as {@code cursor_too_old} announces the
 * offsets up to the oldest one held. The run counts where each resubscribe went.
 *
 * <p>The checker ({@link SubscriberLedger}) requires that every subscriber ends with every offset, or with a gap or
 * refusal naming exactly what it missed, and that per step delivered plus announced equals published for every
 * subscriber. It prints one row per step (published, delivered %, announced, the relays' drops by reason scraped
 * from each node's {@code /metrics}, fenced, paced closes, reconnects) and exits 1 on any violation.
 */
public final class ClusterRelayLoadRun {

    static final StreamRef DURABLE = StreamRef.parse("t1/default/relay-durable");
    static final StreamRef EPHEMERAL = StreamRef.parse("t1/default/relay-ephemeral");
    /** The relay tuning of the run: a loss comes within a fraction of a second of a subscriber stalling. */
    static final int RELAY_DEADLINE_MS = 300;
    static final int RELAY_QUEUE_BATCHES = 64;
    /**
     * Each node's queue per local subscription (a relayed one's too): small, so a stalled subscriber fills it within
     * the step and the relay's deadline, not only the SDK's buffers, is what it runs into.
     */
    static final int SUBSCRIBER_QUEUE_EVENTS = 256;
    /** Each step's rate is this many times the previous one's. */
    static final int RATE_FACTOR = 4;
    private static final Duration SETTLE = Duration.ofSeconds(45);

    private ClusterRelayLoadRun() {
    }

    /** What to run. */
    record Options(long seed, int steps, int stepSeconds, int subscribers, int baseRate, Path dir) {

        static Options parse(String[] args) {
            long seed = 11;
            int steps = 3;
            int stepSeconds = 4;
            int subscribers = 12;
            int baseRate = 250;
            Path dir = null;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
                String value = a.contains("=") ? a.substring(a.indexOf('=') + 1) : null;
                if (value == null && i + 1 < args.length) {
                    value = args[++i];
                }
                if (value == null) {
                    throw new IllegalArgumentException("'" + name + "' needs a value");
                }
                switch (name) {
                    case "--seed" -> seed = number(name, value);
                    case "--steps" -> steps = (int) range(name, value, 1, 6);
                    case "--step-seconds" -> stepSeconds = (int) range(name, value, 1, 600);
                    case "--subscribers" -> subscribers = (int) range(name, value, 6, 300);
                    case "--base-rate" -> baseRate = (int) range(name, value, 10, 100_000);
                    case "--dir" -> dir = Path.of(value);
                    default -> throw new IllegalArgumentException("unknown argument '" + name + "'");
                }
            }
            return new Options(seed, steps, stepSeconds, subscribers, baseRate, dir);
        }

        private static long number(String name, String value) {
            try {
                return Long.parseLong(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + " needs a whole number, not '" + value + "'");
            }
        }

        private static long range(String name, String value, long min, long max) {
            long v = number(name, value);
            if (v < min || v > max) {
                throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", not " + v);
            }
            return v;
        }

        /** Events a second of each stream at step {@code step} (1-based). */
        int rate(int step) {
            long r = baseRate;
            for (int i = 1; i < step; i++) {
                r *= RATE_FACTOR;
            }
            return (int) Math.min(r, 1_000_000);
        }
    }

    static String usage() {
        return """
            usage: felix demo cluster-relay-load [--seed N] [--steps N] [--step-seconds N] [--subscribers N]
                                                 [--base-rate N] [--dir DIR]

            Starts three felix server processes with cluster_relay_subscribe: true, a durable and an ephemeral stream,
            a publisher on each stream's leader and subscribers spread over the nodes (most relayed; some with gap
            notices, some plain, some slowed), raises the publish rate step by step until the relays fall behind,
            and checks that every subscriber ends with every offset or with a gap / resync notice covering exactly
            what it missed: per step, delivered + announced == published. Exits 0 only if every check held.

              --seed N          seeds the resubscribe backoff jitter and the payloads (default 11)
              --steps N         load steps (default 3); step k publishes base-rate * 4^(k-1) events/s per stream
              --step-seconds N  seconds per step (default 4)
              --subscribers N   subscribers over both streams (default 12, at least 6)
              --base-rate N     events a second per stream at step 1 (default 250)
              --dir DIR         where the nodes keep their data and logs (default: a new temporary directory)
            """;
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
            out.print(usage());
            return 0;
        }
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("error: " + e.getMessage());
            err.println("(see --help)");
            return 2;
        }
        try {
            Path dir = options.dir() != null ? options.dir() : Files.createTempDirectory("felix-relay-load");
            List<String> problems = new Scenario(options, dir, out).run();
            out.println();
            out.println(problems.isEmpty()
                    ? "RESULT: as promised — every subscriber ended with every offset or with a notice naming exactly"
                            + " what it missed; delivered + announced == published at every step"
                    : "RESULT: NOT AS PROMISED — " + problems.size() + " violation(s); first: " + problems.get(0));
            out.println("(node data and logs: " + dir + ")");
            return problems.isEmpty() ? 0 : 1;
        } catch (Exception e) {
            err.println("error: " + e);
            return 1;
        }
    }

    /** One run: the cluster, the clients, the steps, the checks. */
    static final class Scenario implements RelayLoadSubscriber.Run {
        private final Options options;
        private final Path dir;
        private final PrintStream out;
        private final long started = System.nanoTime();
        private final List<String> problems = new ArrayList<>();
        private final Map<StreamRef, CompletableFuture<Long>> starts = new HashMap<>();
        /** The last offset published to each stream (once publishing is over). */
        private final Map<StreamRef, AtomicLong> lastOffset = new HashMap<>();
        private final List<RelayLoadSubscriber> subs = new ArrayList<>();
        private LocalCluster cluster;
        private ClientResources shared;

        Scenario(Options options, Path dir, PrintStream out) {
            this.options = options;
            this.dir = dir;
            this.out = out;
            for (StreamRef s : List.of(DURABLE, EPHEMERAL)) {
                starts.put(s, new CompletableFuture<>());
                lastOffset.put(s, new AtomicLong(Long.MAX_VALUE));
            }
        }

        private void say(String line) {
            out.printf("[%6.1fs] %s%n", (System.nanoTime() - started) / 1e9, line);
        }

        List<String> run() throws Exception {
            say("starting three nodes (cluster_relay_subscribe: true, relay deadline " + RELAY_DEADLINE_MS
                    + " ms, worker queues of " + RELAY_QUEUE_BATCHES + " batches, subscriber queues of "
                    + SUBSCRIBER_QUEUE_EVENTS + " events)");
            List<String> flags = List.of("--set", "cluster_relay_subscribe=true",
                    "--set", "cluster_relay_deadline_ms=" + RELAY_DEADLINE_MS,
                    "--set", "cluster_relay_queue_batches=" + RELAY_QUEUE_BATCHES,
                    "--set", "subscriber_queue_events=" + SUBSCRIBER_QUEUE_EVENTS);
            try (LocalCluster c = LocalCluster.start(dir, 3, flags);
                    ClientResources resources = ClientResources.create(2, 2)) {
                cluster = c;
                shared = resources;
                Map<StreamRef, String> leaders = createStreams();
                List<RelayLoadPublisher> publishers = new ArrayList<>();
                try {
                    for (StreamRef s : List.of(DURABLE, EPHEMERAL)) {
                        publishers.add(new RelayLoadPublisher(s, FelixClient.connect(config(c.node(leaders.get(s))
                                .clientAddress(), 1024).build())));
                    }
                    placeSubscribers(leaders);
                    warmUp(publishers);
                    List<StepRow> rows = new ArrayList<>();
                    for (int k = 1; k <= options.steps(); k++) {
                        rows.add(runStep(k, publishers));
                    }
                    for (RelayLoadPublisher p : publishers) {
                        lastOffset.get(p.stream).set(p.last);
                    }
                    settle();
                    report(rows, leaders);
                } finally {
                    for (RelayLoadSubscriber s : subs) {
                        s.stop(true);
                    }
                    for (RelayLoadSubscriber s : subs) {
                        s.thread.join(10_000);
                    }
                    for (RelayLoadPublisher p : publishers) {
                        p.close();
                    }
                }
                return problems;
            }
        }

        private Map<StreamRef, String> createStreams() throws InterruptedException {
            try (FelixClient admin = cluster.connect("n1")) {
                admin.streams().create(DURABLE, StreamSpec.durable(1, "none"));
                admin.streams().create(EPHEMERAL, StreamSpec.ephemeral(1));
            }
            Map<StreamRef, String> leaders = new LinkedHashMap<>();
            for (StreamRef s : List.of(DURABLE, EPHEMERAL)) {
                ClusterShardStatus st = cluster.awaitShard("n1", s.toString(), 0, Duration.ofSeconds(30),
                        x -> "online".equals(x.status()) && x.leader() != null, "the placement of " + s);
                leaders.put(s, st.leader());
                say("created " + s + " (" + (s == DURABLE ? "durable" : "ephemeral") + ", 1 shard), led by "
                        + st.leader());
            }
            return leaders;
        }

        @Override
        public LocalCluster cluster() {
            return cluster;
        }

        @Override
        public long start(StreamRef stream) {
            return starts.get(stream).join();
        }

        @Override
        public long lastOffset(StreamRef stream) {
            return lastOffset.get(stream).get();
        }

        @Override
        public ClientConfig.Builder config(InetSocketAddress broker, int receiveEvents) {
            try {
                return ClientConfig.builder(ClientTrust.certificates(cluster.caCertificate())).broker(broker)
                        .tenant("t1").connectTimeout(Duration.ofSeconds(5)).requestTimeout(Duration.ofSeconds(15))
                        .resources(shared).receiveQueue(receiveEvents, 1L << 20, ReceivePolicy.BLOCK);
            } catch (dev.felix.transport.TlsException e) {
                throw new IllegalStateException("cannot read the cluster CA: " + e.getMessage(), e);
            }
        }

        /**
         * Spreads the subscribers: they alternate between the streams; per stream, four of every five sit on the
         * two nodes that do not lead it. Durable: every other one plain. Every third is slowed.
         */
        private void placeSubscribers(Map<StreamRef, String> leaders) throws Exception {
            Random seeds = new Random(options.seed());
            CountDownLatch confirmed = new CountDownLatch(options.subscribers());
            for (int i = 0; i < options.subscribers(); i++) {
                StreamRef stream = i % 2 == 0 ? DURABLE : EPHEMERAL;
                int j = i / 2;
                String leader = leaders.get(stream);
                List<String> others = cluster.nodes().stream().map(NodeProcess::id).filter(id -> !id.equals(leader))
                        .toList();
                String node = switch (j % 5) {
                    case 0, 2 -> others.get(0);
                    case 1, 3 -> others.get(1);
                    default -> leader;
                };
                boolean plain = stream == DURABLE && j % 2 == 0;
                boolean slowed = j % 3 == 0;
                RelayLoadSubscriber s = new RelayLoadSubscriber(this, i, stream, node, node.equals(leader), plain,
                        slowed, new Random(seeds.nextLong()),
                        confirmed);
                subs.add(s);
                s.thread.start();
            }
            if (!confirmed.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not every subscriber was confirmed within 60 s");
            }
            for (RelayLoadSubscriber s : subs) {
                if (s.failure.get() != null) {
                    throw new IllegalStateException("subscriber " + s.name + " could not subscribe: "
                            + s.failure.get());
                }
            }
            long relayed = subs.stream().filter(s -> !s.onLeader).count();
            say(subs.size() + " subscribers: " + relayed + " on nodes that do not lead their stream (relayed), "
                    + subs.stream().filter(s -> s.plain).count() + " plain (no gap notices), "
                    + subs.stream().filter(s -> s.slowed).count() + " slowed ("
                    + RelayLoadSubscriber.SLOW_MICROS_PER_EVENT / 1000
                    + " ms per event)");
            for (RelayLoadSubscriber s : subs) {
                say("  " + s);
            }
        }

        /** One event per stream that every subscriber must receive: where each subscriber's ledger starts. */
        private void warmUp(List<RelayLoadPublisher> publishers) throws InterruptedException {
            for (RelayLoadPublisher p : publishers) {
                starts.get(p.stream).complete(p.publishOne("warm-up"));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (RelayLoadSubscriber s : subs) {
                while (s.next() <= starts.get(s.stream).join() && System.nanoTime() < deadline) {
                    Thread.sleep(20); // the subscriber's thread advances it: polling a counter
                }
                if (s.next() <= starts.get(s.stream).join()) {
                    throw new IllegalStateException("subscriber " + s.name + " did not receive the warm-up event");
                }
            }
            say("every subscriber received the warm-up event of its stream");
        }

        private StepRow runStep(int k, List<RelayLoadPublisher> publishers) throws Exception {
            int rate = options.rate(k);
            Map<String, Double> before = scrape();
            for (RelayLoadPublisher p : publishers) {
                p.beginStep();
            }
            int perTick = Math.max(1, rate / 100);
            long tick = TimeUnit.SECONDS.toNanos(1) * perTick / rate;
            long begin = System.nanoTime();
            long end = begin + TimeUnit.SECONDS.toNanos(options.stepSeconds());
            long n = 0;
            while (System.nanoTime() < end) {
                long due = begin + n * tick;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                for (RelayLoadPublisher p : publishers) {
                    p.send(k, n, perTick);
                }
                n++;
            }
            for (RelayLoadPublisher p : publishers) {
                p.endStep();
            }
            Map<String, Double> after = scrape();
            StepRow row = new StepRow(k, rate, new HashMap<>(), diff(before, after));
            for (RelayLoadPublisher p : publishers) {
                row.ranges.put(p.stream, new long[] {p.stepFirst, p.stepLast, p.stepCount});
                if (p.problem() != null) {
                    problems.add(p.stream + ": " + p.problem());
                }
            }
            say(String.format(Locale.ROOT, "step %d: %,d events/s per stream for %d s; published %s", k, rate,
                    options.stepSeconds(), row.rangesText()));
            return row;
        }

        /** Until every subscriber has accounted for the last published offset of its stream. */
        private void settle() throws InterruptedException {
            say("publishing over; waiting for every subscriber to account for the last offset of its stream");
            long deadline = System.nanoTime() + SETTLE.toNanos();
            for (RelayLoadSubscriber s : subs) {
                s.stop(false);
            }
            for (RelayLoadSubscriber s : subs) {
                long left = deadline - System.nanoTime();
                s.thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                if (s.thread.isAlive()) {
                    problems.add(s.name + " stopped at offset " + s.next() + " short of "
                            + (lastOffset.get(s.stream).get() + 1) + " with no notice covering the rest ("
                            + SETTLE.toSeconds() + " s after publishing ended)");
                } else if (s.next() > lastOffset.get(s.stream).get() + 1) {
                    problems.add(s.name + " received offsets up to " + (s.next() - 1) + ", past the last one"
                            + " acknowledged (" + lastOffset.get(s.stream).get() + ")");
                }
            }
        }

        private void report(List<StepRow> rows, Map<StreamRef, String> leaders) {
            out.println();
            out.println(String.format(Locale.ROOT, "%-4s %8s %10s %12s %10s %9s %8s %8s %11s %7s %7s %7s %7s %7s"
                            + " %7s  %s", "step", "rate/s", "published", "deliveries", "delivered", "gap-ann",
                    "too-old",
                    "resyncs", "queue_full", "stale", "ephem", "fenced", "gaps", "closes", "reconn", "check"));
            for (StepRow r : rows) {
                long published = 0;
                long expected = 0;
                long delivered = 0;
                long gapAnnounced = 0;
                long tooOld = 0;
                long resyncs = 0;
                long reconnects = 0;
                List<String> unbalanced = new ArrayList<>();
                for (StreamRef s : List.of(DURABLE, EPHEMERAL)) {
                    long[] range = r.ranges.get(s);
                    published += range[2];
                    if (range[1] - range[0] + 1 != range[2]) {
                        unbalanced.add(s + " step " + r.step + ": acknowledged " + range[2] + " events but offsets "
                                + range[0] + ".." + range[1] + " (another writer?)");
                    }
                    for (RelayLoadSubscriber sub : subs) {
                        if (sub.stream != s || sub.ledger() == null) {
                            continue;
                        }
                        SubscriberLedger.Account a = sub.ledger().account(range[0], range[1]);
                        expected += a.published();
                        delivered += a.delivered();
                        gapAnnounced += a.gapAnnounced();
                        tooOld += a.tooOldAnnounced();
                        resyncs += sub.resyncsIn(range[0], range[1]);
                        reconnects += sub.reconnectsIn(range[0], range[1]);
                        if (!a.balanced()) {
                            unbalanced.add("step " + r.step + ", " + sub.name + ": delivered " + a.delivered()
                                    + " + announced " + a.announced() + " != published " + a.published());
                        }
                    }
                }
                problems.addAll(unbalanced);
                r.announced = gapAnnounced + tooOld;
                out.println(String.format(Locale.ROOT, "%-4d %8d %10d %12d %9.2f%% %9d %8d %8d %11.0f %7.0f %7.0f"
                                + " %7.0f %7.0f %7.0f %7d  %s", r.step, r.rate, published, expected,
                        100.0 * delivered / Math.max(1, expected), gapAnnounced, tooOld, resyncs,
                        r.metric("felix_relay_dropped_total{reason=\"queue_full\"}"),
                        r.metric("felix_relay_dropped_total{reason=\"stale\"}"),
                        r.metric("felix_relay_dropped_total{reason=\"ephemeral\"}"),
                        r.metric("felix_relay_fenced_total"), r.metric("felix_relay_gaps_total"),
                        r.metric("felix_relay_paced_closes_total"), reconnects,
                        unbalanced.isEmpty() ? "OK" : unbalanced.size() + " unbalanced"));
            }
            out.println("  (published: events acknowledged over both streams; deliveries: owed to subscribers;"
                    + " gap-ann / too-old: offsets announced lost by a gap notice / by a refused resubscribe;"
                    + " resyncs / reconn: resync closes / resubscribes at an offset of the step;"
                    + " queue_full..closes: the"
                    + " relays' counters summed over the nodes while the step was published; deliveries and notices"
                    + " count by offset, so a step's late deliveries and losses count in its own row)");
            int onRelay = 0;
            int onLeader = 0;
            for (RelayLoadSubscriber s : subs) {
                onRelay += s.resubscribedRelayed.get();
                onLeader += s.resubscribedLeader.get();
                problems.addAll(s.ledger() != null ? s.ledger().violations() : List.of(s.name + " never started"));
            }
            int ahead = 0;
            long aheadEvents = 0;
            for (RelayLoadSubscriber s : subs) {
                if (s.ledger() != null) {
                    ahead += s.ledger().resyncsAhead();
                    aheadEvents += s.ledger().resyncAheadEvents();
                }
            }
            out.println();
            out.println("  resync offsets ahead of the subscriber  " + ahead + " close(s), " + aheadEvents + " event(s)"
                    + " the relaying node had queued for the subscriber but dropped at the close (it resumed from its"
                    + " own cursor instead)");
            out.println("  resubscribes        " + (onRelay + onLeader) + ": " + onRelay + " served again by the"
                    + " relaying node, " + onLeader + " on the leader (after not_leader or on it already)");
            out.println("  subscribers         " + subs.size() + " (leaders: durable " + leaders.get(DURABLE)
                    + ", ephemeral " + leaders.get(EPHEMERAL) + ")");
            for (RelayLoadSubscriber s : subs) {
                out.println("    " + s + " -> next " + s.next() + ", resyncs " + (s.ledger() == null ? 0
                        : s.ledger().resyncs()) + ", reconnects " + (s.resubscribedRelayed.get()
                        + s.resubscribedLeader.get()));
            }
            problems.stream().limit(20).forEach(p -> say("  FAIL " + p));
            if (!rows.isEmpty()) {
                StepRow top = rows.get(rows.size() - 1);
                out.println("  loss announced at the top step  " + top.announced);
            }
        }

        /** Every node's {@code felix_relay_*} series, summed over the nodes. */
        private Map<String, Double> scrape() {
            Map<String, Double> sum = new HashMap<>();
            for (NodeProcess n : cluster.nodes()) {
                if (n.httpAddress() == null) {
                    continue;
                }
                try {
                    metrics(n.metricsText()).forEach((k, v) -> sum.merge(k, v, Double::sum));
                } catch (Exception e) {
                    say("could not scrape node " + n.id() + ": " + e);
                }
            }
            return sum;
        }

        private static Map<String, Double> diff(Map<String, Double> before, Map<String, Double> after) {
            Map<String, Double> d = new HashMap<>();
            after.forEach((k, v) -> d.put(k, v - before.getOrDefault(k, 0.0)));
            return d;
        }

    }

    private static final Pattern SERIES = Pattern.compile("(?m)^(felix_relay_[a-z_]+)(\\{[^}]*})? (\\S+)$");

    /** {@code felix_relay_*} series of one Prometheus scrape, by name and labels as printed. */
    static Map<String, Double> metrics(String scrape) {
        Map<String, Double> m = new HashMap<>();
        Matcher x = SERIES.matcher(scrape);
        while (x.find()) {
            String labels = x.group(2) == null ? "" : x.group(2).replace(",}", "}");
            try {
                m.merge(x.group(1) + labels, Double.parseDouble(x.group(3)), Double::sum);
            } catch (NumberFormatException e) {
                // NaN and the like: not a counter
            }
        }
        return m;
    }

    /** One step's published ranges and the relays' counters over it. */
    static final class StepRow {
        final int step;
        final int rate;
        final Map<StreamRef, long[]> ranges;
        final Map<String, Double> metrics;
        long announced;

        StepRow(int step, int rate, Map<StreamRef, long[]> ranges, Map<String, Double> metrics) {
            this.step = step;
            this.rate = rate;
            this.ranges = ranges;
            this.metrics = metrics;
        }

        double metric(String series) {
            return metrics.getOrDefault(series, 0.0);
        }

        String rangesText() {
            StringBuilder b = new StringBuilder();
            ranges.forEach((s, r) -> b.append(b.length() == 0 ? "" : ", ").append(s.stream()).append(' ')
                    .append(r[0]).append("..").append(r[1]));
            return b.toString();
        }
    }

}
