package dev.felix.demos.cluster;

import dev.felix.client.ClientConfig;
import dev.felix.client.ClientResources;
import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.Gap;
import dev.felix.client.Item;
import dev.felix.client.PublishAck;
import dev.felix.client.Publisher;
import dev.felix.client.ReceivePolicy;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.transport.ClientTrust;
import dev.felix.wire.ClusterShardStatus;
import dev.felix.wire.ErrorCode;
import dev.felix.wire.StartPosition;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
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
    /** How long a slowed subscriber's handler sleeps per event: it takes at most about 500 events a second. */
    static final long SLOW_MICROS_PER_EVENT = 2_000;
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
    static final class Scenario {
        private final Options options;
        private final Path dir;
        private final PrintStream out;
        private final long started = System.nanoTime();
        private final List<String> problems = new ArrayList<>();
        private final Map<StreamRef, CompletableFuture<Long>> starts = new HashMap<>();
        /** The last offset published to each stream (once publishing is over). */
        private final Map<StreamRef, AtomicLong> lastOffset = new HashMap<>();
        private final List<Sub> subs = new ArrayList<>();
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
                    + " ms, worker queues of " + RELAY_QUEUE_BATCHES + " batches, subscriber queues of " + SUBSCRIBER_QUEUE_EVENTS
                    + " events)");
            List<String> flags = List.of("--set", "cluster_relay_subscribe=true",
                    "--set", "cluster_relay_deadline_ms=" + RELAY_DEADLINE_MS,
                    "--set", "cluster_relay_queue_batches=" + RELAY_QUEUE_BATCHES,
                    "--set", "subscriber_queue_events=" + SUBSCRIBER_QUEUE_EVENTS);
            try (LocalCluster c = LocalCluster.start(dir, 3, flags);
                    ClientResources resources = ClientResources.create(2, 2)) {
                cluster = c;
                shared = resources;
                Map<StreamRef, String> leaders = createStreams();
                List<Publishing> publishers = new ArrayList<>();
                try {
                    for (StreamRef s : List.of(DURABLE, EPHEMERAL)) {
                        publishers.add(new Publishing(s, FelixClient.connect(config(c.node(leaders.get(s))
                                .clientAddress(), 1024).build())));
                    }
                    placeSubscribers(leaders);
                    warmUp(publishers);
                    List<StepRow> rows = new ArrayList<>();
                    for (int k = 1; k <= options.steps(); k++) {
                        rows.add(runStep(k, publishers));
                    }
                    for (Publishing p : publishers) {
                        lastOffset.get(p.stream).set(p.last);
                    }
                    settle();
                    report(rows, leaders);
                } finally {
                    for (Sub s : subs) {
                        s.stop(true);
                    }
                    for (Sub s : subs) {
                        s.thread.join(10_000);
                    }
                    for (Publishing p : publishers) {
                        p.client.close();
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

        ClientConfig.Builder config(InetSocketAddress broker, int receiveEvents) {
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
                Sub s = new Sub(i, stream, node, node.equals(leader), plain, slowed, new Random(seeds.nextLong()),
                        confirmed);
                subs.add(s);
                s.thread.start();
            }
            if (!confirmed.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not every subscriber was confirmed within 60 s");
            }
            for (Sub s : subs) {
                if (s.failure.get() != null) {
                    throw new IllegalStateException("subscriber " + s.name + " could not subscribe: " + s.failure.get());
                }
            }
            long relayed = subs.stream().filter(s -> !s.onLeader).count();
            say(subs.size() + " subscribers: " + relayed + " on nodes that do not lead their stream (relayed), "
                    + subs.stream().filter(s -> s.plain).count() + " plain (no gap notices), "
                    + subs.stream().filter(s -> s.slowed).count() + " slowed (" + SLOW_MICROS_PER_EVENT / 1000
                    + " ms per event)");
            for (Sub s : subs) {
                say("  " + s);
            }
        }

        /** One event per stream that every subscriber must receive: where each subscriber's ledger starts. */
        private void warmUp(List<Publishing> publishers) throws InterruptedException {
            for (Publishing p : publishers) {
                long o = p.publisher.publish("warm-up".getBytes(StandardCharsets.UTF_8)).firstOffset();
                p.last = o;
                starts.get(p.stream).complete(o);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (Sub s : subs) {
                while (s.next() <= starts.get(s.stream).join() && System.nanoTime() < deadline) {
                    Thread.sleep(20); // the subscriber's thread advances it: polling a counter
                }
                if (s.next() <= starts.get(s.stream).join()) {
                    throw new IllegalStateException("subscriber " + s.name + " did not receive the warm-up event");
                }
            }
            say("every subscriber received the warm-up event of its stream");
        }

        private StepRow runStep(int k, List<Publishing> publishers) throws Exception {
            int rate = options.rate(k);
            Map<String, Double> before = scrape();
            for (Publishing p : publishers) {
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
                for (Publishing p : publishers) {
                    p.send(k, n, perTick);
                }
                n++;
            }
            for (Publishing p : publishers) {
                p.endStep();
            }
            Map<String, Double> after = scrape();
            StepRow row = new StepRow(k, rate, new HashMap<>(), diff(before, after));
            for (Publishing p : publishers) {
                row.ranges.put(p.stream, new long[] {p.stepFirst, p.stepLast, p.stepCount});
                if (p.problem != null) {
                    problems.add(p.stream + ": " + p.problem);
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
            for (Sub s : subs) {
                s.stop(false);
            }
            for (Sub s : subs) {
                long left = deadline - System.nanoTime();
                s.thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                if (s.thread.isAlive()) {
                    problems.add(s.name + " stopped at offset " + s.next() + " short of "
                            + (lastOffset.get(s.stream).get() + 1) + " with no notice covering the rest ("
                            + SETTLE.toSeconds() + " s after publishing ended)");
                }
            }
        }

        private void report(List<StepRow> rows, Map<StreamRef, String> leaders) {
            out.println();
            out.println(String.format(Locale.ROOT, "%-4s %8s %10s %12s %10s %9s %8s %8s %11s %7s %7s %7s %7s %7s"
                            + " %7s  %s", "step", "rate/s", "published", "deliveries", "delivered", "gap-ann", "too-old",
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
                    for (Sub sub : subs) {
                        if (sub.stream != s || sub.ledger == null) {
                            continue;
                        }
                        SubscriberLedger.Account a = sub.ledger.account(range[0], range[1]);
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
                    + " resyncs / reconn: resync closes / resubscribes at an offset of the step; queue_full..closes: the"
                    + " relays' counters summed over the nodes while the step was published; deliveries and notices"
                    + " count by offset, so a step's late deliveries and losses count in its own row)");
            int onRelay = 0;
            int onLeader = 0;
            for (Sub s : subs) {
                onRelay += s.resubscribedRelayed.get();
                onLeader += s.resubscribedLeader.get();
                problems.addAll(s.ledger != null ? s.ledger.violations() : List.of(s.name + " never started"));
            }
            int ahead = 0;
            long aheadEvents = 0;
            for (Sub s : subs) {
                if (s.ledger != null) {
                    ahead += s.ledger.resyncsAhead();
                    aheadEvents += s.ledger.resyncAheadEvents();
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
            for (Sub s : subs) {
                out.println("    " + s + " -> next " + s.next() + ", resyncs " + (s.ledger == null ? 0
                        : s.ledger.resyncs()) + ", reconnects " + (s.resubscribedRelayed.get()
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
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
            for (NodeProcess n : cluster.nodes()) {
                InetSocketAddress a = n.httpAddress();
                if (a == null) {
                    continue;
                }
                try {
                    String body = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.getPort()
                            + "/metrics")).timeout(Duration.ofSeconds(5)).build(),
                            HttpResponse.BodyHandlers.ofString()).body();
                    metrics(body).forEach((k, v) -> sum.merge(k, v, Double::sum));
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

        /** A subscriber: its own connection (SDK or plain), its thread, its ledger. */
        final class Sub implements Runnable {
            final String name;
            final StreamRef stream;
            final boolean onLeader;
            final boolean plain;
            final boolean slowed;
            final Thread thread;
            final AtomicInteger resubscribedRelayed = new AtomicInteger();
            final AtomicInteger resubscribedLeader = new AtomicInteger();
            final AtomicReference<String> failure = new AtomicReference<>();
            private final String firstNode;
            private final Random jitter;
            private final CountDownLatch confirmed;
            /** Where each resync close and each resubscribe stood: rows count them by offset, like deliveries. */
            private final List<Long> resyncOffsets = new java.util.concurrent.CopyOnWriteArrayList<>();
            private final List<Long> reconnectOffsets = new java.util.concurrent.CopyOnWriteArrayList<>();
            volatile SubscriberLedger ledger;
            private volatile boolean stopping;
            private volatile boolean abort;

            Sub(int index, StreamRef stream, String node, boolean onLeader, boolean plain, boolean slowed,
                    Random jitter, CountDownLatch confirmed) {
                this.name = "s" + index;
                this.stream = stream;
                this.firstNode = node;
                this.onLeader = onLeader;
                this.plain = plain;
                this.slowed = slowed;
                this.jitter = jitter;
                this.confirmed = confirmed;
                this.thread = new Thread(this, "relay-load-" + name);
                this.thread.setDaemon(true);
            }

            long next() {
                SubscriberLedger l = ledger;
                return l == null ? -1 : l.next();
            }

            long resyncsIn(long from, long to) {
                return resyncOffsets.stream().filter(o -> o >= from && o <= to).count();
            }

            long reconnectsIn(long from, long to) {
                return reconnectOffsets.stream().filter(o -> o >= from && o <= to).count();
            }

            /** Stop once the stream's last offset is accounted for ({@code now}: at once). */
            void stop(boolean now) {
                stopping = true;
                abort |= now;
            }

            @Override
            public void run() {
                Source source;
                try {
                    source = open(cluster.node(firstNode).clientAddress(), new StartPosition.Latest());
                } catch (RuntimeException e) {
                    failure.set(String.valueOf(e.getMessage()));
                    confirmed.countDown();
                    return;
                }
                confirmed.countDown();
                InetSocketAddress home = cluster.node(firstNode).clientAddress();
                try {
                    ledger = new SubscriberLedger(name, starts.get(stream).join());
                    while (!abort && !(stopping && ledger.next() > lastOffset.get(stream).get())) {
                        Got got = source.next(Duration.ofMillis(200));
                        if (got instanceof Got.Events e) {
                            ledger.events(e.base(), e.count());
                            if (slowed) {
                                TimeUnit.MICROSECONDS.sleep(SLOW_MICROS_PER_EVENT * e.count()); // the slow handler
                            }
                        } else if (got instanceof Got.GapNotice g) {
                            ledger.gap(g.from(), g.to(), g.reason());
                        } else if (got instanceof Got.End end) {
                            FelixClientException cause = end.cause();
                            if (cause.code() == ErrorCode.RESYNC) {
                                ledger.resync(cause.availableOffset());
                                resyncOffsets.add(cause.availableOffset());
                            } else if (cause.code() != ErrorCode.UNAVAILABLE) {
                                ledger.violation("the subscription ended with " + cause.getMessage());
                            }
                            source.close();
                            source = null;
                            Reopened r = reopen(home);
                            if (r == null) {
                                return;
                            }
                            source = r.source;
                            home = r.address;
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    SubscriberLedger l = ledger;
                    if (l != null) {
                        l.violation("failed: " + e);
                    }
                } finally {
                    if (source != null) {
                        source.close();
                    }
                }
            }

            private record Reopened(Source source, InetSocketAddress address) {
            }

            /**
             * Subscribes again from the ledger's next offset after a full-jitter pause: where it was, else on the
             * leader a {@code not_leader} names; a {@code cursor_too_old} is announced loss, then again.
             */
            private Reopened reopen(InetSocketAddress home) throws InterruptedException {
                reconnectOffsets.add(ledger.next());
                InetSocketAddress target = home;
                long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                for (int attempt = 0; !abort && System.nanoTime() < giveUp; attempt++) {
                    long ceiling = Math.min(2_000, 50L << Math.min(attempt, 10));
                    Thread.sleep((long) (jitter.nextDouble() * ceiling)); // full jitter: uniform in [0, ceiling]
                    long from = ledger.next();
                    try {
                        Source s = open(target, new StartPosition.AtOffset(from));
                        boolean leaderNode = isLeader(target);
                        (leaderNode ? resubscribedLeader : resubscribedRelayed).incrementAndGet();
                        return new Reopened(s, target);
                    } catch (FelixClientException e) {
                        if (e.code() == ErrorCode.NOT_LEADER) {
                            target = e.leader() != null ? address(e.leader().addr()) : leaderAddress();
                            attempt = -1; // a redirect is not a failure: go there at once
                        } else if (e.code() == ErrorCode.CURSOR_TOO_OLD) {
                            ledger.tooOld(e.availableOffset());
                            attempt = -1;
                        } else if (e.code() == ErrorCode.CURSOR_IN_FUTURE) {
                            ledger.violation("resubscribing from " + from + " was refused as past the tail");
                            return null;
                        }
                        // unavailable, timeout, connection lost: back off and try again
                    }
                }
                if (!abort) {
                    ledger.violation("could not subscribe again within 60 s");
                }
                return null;
            }

            private boolean isLeader(InetSocketAddress a) {
                try {
                    return a.equals(leaderAddress());
                } catch (RuntimeException e) {
                    return false;
                }
            }

            private InetSocketAddress leaderAddress() {
                String leader = cluster.shard(cluster.nodes().get(0).id(), stream.toString(), 0).leader();
                return cluster.node(leader).clientAddress();
            }

            private Source open(InetSocketAddress broker, StartPosition from) {
                if (plain) {
                    PlainSubscriber p = PlainSubscriber.open(broker, cluster.caCertificate(), stream.tenant(),
                            stream.namespace(), stream.stream(), from, Duration.ofSeconds(15));
                    return new PlainSource(p);
                }
                FelixClient client = FelixClient.connect(config(broker, 64).build());
                try {
                    return new SdkSource(client, client.subscribe(SubscribeOptions.of(stream).from(from)));
                } catch (RuntimeException e) {
                    client.close();
                    throw e;
                }
            }

            @Override
            public String toString() {
                return String.format(Locale.ROOT, "%-4s %-9s on %s (%s)%s%s", name, stream == DURABLE ? "durable"
                        : "ephemeral", firstNode, onLeader ? "leader" : "relayed", plain ? ", plain"
                        : ", gap notices", slowed ? ", slowed" : "");
            }
        }
    }

    private static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
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

    /** What a subscriber's connection handed it next. */
    sealed interface Got {
        record Events(long base, int count) implements Got {
        }

        record GapNotice(long from, long to, String reason) implements Got {
        }

        record End(FelixClientException cause) implements Got {
        }
    }

    /** A subscriber's connection: the SDK's, or a plain one. */
    interface Source extends AutoCloseable {
        /** The next item, or null if none came within {@code timeout}. */
        Got next(Duration timeout) throws InterruptedException;

        @Override
        void close();
    }

    private record SdkSource(FelixClient client, Subscription subscription) implements Source {
        @Override
        public Got next(Duration timeout) {
            try {
                Item item = subscription.next(timeout);
                if (item instanceof Event e) {
                    return new Got.Events(e.offset(), 1);
                }
                if (item instanceof Gap g) {
                    return new Got.GapNotice(g.from(), g.to(), g.reason());
                }
                return null;
            } catch (FelixClientException e) {
                return new Got.End(e);
            }
        }

        @Override
        public void close() {
            subscription.close();
            client.close();
        }
    }

    private record PlainSource(PlainSubscriber subscriber) implements Source {
        @Override
        public Got next(Duration timeout) throws InterruptedException {
            PlainSubscriber.Received r = subscriber.next(timeout);
            if (r instanceof PlainSubscriber.Events e) {
                return new Got.Events(e.base(), e.count());
            }
            if (r instanceof PlainSubscriber.Ended e) {
                return new Got.End(e.cause());
            }
            return null;
        }

        @Override
        public void close() {
            subscriber.close();
        }
    }

    /** The publisher of one stream, on its leader: a batch per tick, acknowledgements tracked per step. */
    private static final class Publishing {
        final StreamRef stream;
        final FelixClient client;
        final Publisher publisher;
        private final Semaphore inflight = new Semaphore(256);
        long last = -1;
        long stepFirst;
        long stepLast;
        long stepCount;
        private final AtomicLong first = new AtomicLong();
        private final AtomicLong lastAck = new AtomicLong();
        private final AtomicLong count = new AtomicLong();
        volatile String problem;

        Publishing(StreamRef stream, FelixClient client) {
            this.stream = stream;
            this.client = client;
            this.publisher = client.publisher(stream);
        }

        void beginStep() {
            first.set(Long.MAX_VALUE);
            lastAck.set(-1);
            count.set(0);
        }

        void send(int step, long tick, int events) throws InterruptedException {
            List<byte[]> batch = new ArrayList<>(events);
            for (int i = 0; i < events; i++) {
                batch.add((stream.stream() + "-" + step + "-" + tick + "-" + i).getBytes(StandardCharsets.UTF_8));
            }
            inflight.acquire();
            publisher.publishBatchAsync(null, batch).whenComplete((PublishAck ack, Throwable err) -> {
                inflight.release();
                if (err != null) {
                    if (problem == null) {
                        problem = "a publish failed: " + err;
                    }
                    return;
                }
                first.accumulateAndGet(ack.firstOffset(), Math::min);
                lastAck.accumulateAndGet(ack.firstOffset() + ack.count() - 1, Math::max);
                count.addAndGet(ack.count());
            });
        }

        void endStep() throws InterruptedException {
            if (!inflight.tryAcquire(256, 30, TimeUnit.SECONDS)) {
                problem = "publishes were not acknowledged within 30 s";
                return;
            }
            inflight.release(256);
            stepFirst = first.get();
            stepLast = lastAck.get();
            stepCount = count.get();
            last = Math.max(last, stepLast);
        }
    }
}
