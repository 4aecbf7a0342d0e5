package dev.felix.demos.cluster;

import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.ClusterMirror;
import dev.felix.client.ClusterPublisher;
import dev.felix.client.ClusterSubscription;
import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.FelixCluster;
import dev.felix.client.Gap;
import dev.felix.client.Item;
import dev.felix.client.PublishAck;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.wire.ClusterShardStatus;
import dev.felix.wire.StartPosition;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * {@code felix demo cluster-faults}: three real node processes, a publisher and a reader on a {@code quorum}
 * stream and on a {@code leader} stream, and a writer and a mirror on a {@code quorum} log cache, while a seeded
 * schedule SIGKILLs and restarts, SIGSTOPs and
 * SIGCONTs, or cleanly restarts one node at a time. Afterwards every node is brought back and a checker
 * verifies the promises: every acknowledged record is readable at the offset its acknowledgement named; an
 * event stored twice was one whose publish failed or was retried after an unknown outcome; every reader that
 * saw offset {@code o} saw the same payload (offsets never fork); and both streams are served complete, from
 * offset 0 with no hole and no gap; every acknowledged cache put reads back with its value, no two share an
 * offset, and the mirror converged on them. It prints what happened (acknowledgements, kills, freezes, leader
 * changes, truncations) and exits 1 if any check failed.
 */
public final class ClusterFaultRun {

    static final String QUORUM_STREAM = "t1/default/faults-quorum";
    static final String LEADER_STREAM = "t1/default/faults-leader";
    static final String QUORUM_CACHE = "t1/default/faults-cache";

    private ClusterFaultRun() {
    }

    static String usage() {
        return """
            usage: felix demo cluster-faults [--seed N] [--seconds N] [--dir DIR]

            Starts three felix server processes as a cluster on loopback, publishes to a quorum stream and a
            leader stream and puts into a quorum log cache (each replicated three ways) while killing, freezing
            and restarting one node at a time on a schedule drawn from the seed, then brings every node back and
            checks that every acknowledged record is readable at its offset, that no offset was ever seen with
            two payloads, that both streams are served complete, and that every acknowledged cache put reads
            back (and is in a mirror that followed the cache throughout). Exits 0 only if every check held.

              --seed N      the schedule's seed (default 7): the same seed gives the same schedule
              --seconds N   how long faults are injected (default 90)
              --dir DIR     where the nodes keep their data and logs (default: a new temporary directory)
            """;
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        long seed = 7;
        int seconds = 90;
        Path dir = null;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                String value = a.contains("=") ? a.substring(a.indexOf('=') + 1) : null;
                String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
                if (name.equals("--help") || name.equals("-h")) {
                    out.print(usage());
                    return 0;
                }
                if (value == null && i + 1 < args.length) {
                    value = args[++i];
                }
                if (value == null) {
                    throw new IllegalArgumentException("'" + name + "' needs a value");
                }
                switch (name) {
                    case "--seed" -> seed = Long.parseLong(value);
                    case "--seconds" -> {
                        seconds = Integer.parseInt(value);
                        if (seconds < 10 || seconds > 3600) {
                            throw new IllegalArgumentException("--seconds must be between 10 and 3600, not " + seconds);
                        }
                    }
                    case "--dir" -> dir = Path.of(value);
                    default -> throw new IllegalArgumentException("unknown argument '" + name + "'");
                }
            }
        } catch (IllegalArgumentException e) {
            err.println("error: " + e.getMessage());
            err.println("(see --help)");
            return 2;
        }
        try {
            if (dir == null) {
                dir = Files.createTempDirectory("felix-cluster-faults");
            }
            List<String> problems = new ClusterFaultRun.Scenario(dir, seed, Duration.ofSeconds(seconds), out).run();
            out.println();
            out.println(problems.isEmpty()
                    ? "RESULT: as promised — every acknowledged record was read back at its offset, no offset forked,"
                            + " both streams are served complete, every acknowledged cache put reads back"
                    : "RESULT: NOT AS PROMISED — " + String.join("; ", problems));
            out.println("(node data and logs: " + dir + ")");
            return problems.isEmpty() ? 0 : 1;
        } catch (Exception e) {
            err.println("error: " + e);
            return 1;
        }
    }

    /** One run: the cluster, the clients, the schedule and the checks. */
    static final class Scenario {
        private final Path dir;
        private final Random random;
        private final Duration chaos;
        private final PrintStream out;
        private final long started = System.nanoTime();
        private final Map<String, Long> faults = new ConcurrentHashMap<>();
        private final List<String> problems = new ArrayList<>();

        Scenario(Path dir, long seed, Duration chaos, PrintStream out) {
            this.dir = dir;
            this.random = new Random(seed);
            this.chaos = chaos;
            this.out = out;
        }

        private void say(String line) {
            out.printf("[%6.1fs] %s%n", (System.nanoTime() - started) / 1e9, line);
        }

        List<String> run() throws Exception {
            say("starting three nodes (n1 bootstraps, n2 and n3 join)");
            // Nodes relay subscribes of shards they do not lead: two of the live readers are served that way.
            try (LocalCluster cluster = LocalCluster.start(dir, 3, List.of("--set", "cluster_relay_subscribe=true"))) {
                try (FelixClient c = cluster.connect("n1")) {
                    c.streams().create(StreamRef.parse(QUORUM_STREAM),
                            new StreamSpec(1, true, "on_commit", null, null).replicated("quorum", 3));
                    c.streams().create(StreamRef.parse(LEADER_STREAM),
                            new StreamSpec(1, true, "on_commit", null, null).replicated("leader", 3));
                    c.caches().create(CacheRef.parse(QUORUM_CACHE),
                            CacheSpec.log("on_commit").withConsistency("quorum"));
                }
                for (String s : List.of(QUORUM_STREAM, LEADER_STREAM)) {
                    ClusterShardStatus placed = cluster.awaitShard("n1", s, 0, Duration.ofSeconds(30),
                            st -> "online".equals(st.status()), "the placement of " + s);
                    say("created " + s + " (" + placed.consistency() + ", 3 replicas), led by " + placed.leader());
                }
                ClusterShardStatus cachePlaced = cluster.awaitCache("n1", QUORUM_CACHE, Duration.ofSeconds(30),
                        st -> "online".equals(st.status()), "the placement of " + QUORUM_CACHE);
                say("created log cache " + QUORUM_CACHE + " (" + cachePlaced.consistency() + ", "
                        + cachePlaced.replicas().size() + " replicas), led by " + cachePlaced.leader());
                try (FelixCluster client = cluster.connectCluster(Duration.ofSeconds(30))) {
                    Writer quorum = new Writer(client, QUORUM_STREAM);
                    Writer leader = new Writer(client, LEADER_STREAM);
                    Reader quorumReader = new Reader(client, QUORUM_STREAM, null);
                    Reader leaderReader = new Reader(client, LEADER_STREAM, null);
                    // Always through one node, whichever leads: its relay while another node leads the shard.
                    NodeProcess n2 = cluster.nodes().get(1);
                    NodeProcess n3 = cluster.nodes().get(2);
                    Reader quorumRelayed = new Reader(client, QUORUM_STREAM, n2::clientAddress);
                    Reader leaderRelayed = new Reader(client, LEADER_STREAM, n3::clientAddress);
                    CacheWriter cache = new CacheWriter(client, QUORUM_CACHE);
                    ClusterMirror mirror = client.mirror(CacheRef.parse(QUORUM_CACHE), null);
                    List<Thread> threads = Stream.of(quorum, leader, cache, quorumReader, leaderReader, quorumRelayed,
                                    leaderRelayed)
                            .map(r -> {
                                Thread t = new Thread(r, "fault-run-client");
                                t.setDaemon(true);
                                t.start();
                                return t;
                            }).toList();
                    inject(cluster);
                    say("faults over: every node back; waiting for both streams to be served");
                    for (String s : List.of(QUORUM_STREAM, LEADER_STREAM)) {
                        awaitOnline(cluster, s);
                    }
                    quorum.stop();
                    leader.stop();
                    cache.stop();
                    for (Thread t : threads.subList(0, 3)) {
                        t.join(Duration.ofSeconds(60).toMillis());
                    }
                    for (Reader r : List.of(quorumReader, quorumRelayed)) {
                        r.awaitReaching(quorum.highestAck() + 1, Duration.ofSeconds(60));
                    }
                    for (Reader r : List.of(leaderReader, leaderRelayed)) {
                        r.awaitReaching(leader.highestAck() + 1, Duration.ofSeconds(60));
                    }
                    Stream.of(quorumReader, leaderReader, quorumRelayed, leaderRelayed).forEach(Reader::stop);
                    check(client, quorum, quorumReader, quorumRelayed);
                    check(client, leader, leaderReader, leaderRelayed);
                    checkCache(cache, mirror);
                    mirror.close();
                    report(cluster, client, quorum, leader, cache, mirror);
                    return problems;
                }
            }
        }

        /** One node at a time: SIGKILL and restart, SIGSTOP and SIGCONT, or a clean restart. */
        private void inject(LocalCluster cluster) throws Exception {
            long end = System.nanoTime() + chaos.toNanos();
            int round = 0;
            while (System.nanoTime() < end) {
                round++;
                // The seed picks a role, not a node id: the leader of one of the three units, or any node. So the
                // leaders (wherever metadata placed them) are faulted as well as the followers.
                int role = random.nextInt(4);
                NodeProcess n = role < 3 ? leaderOf(cluster, role) : null;
                if (n == null) {
                    n = cluster.nodes().get(random.nextInt(3));
                }
                int action = random.nextInt(3);
                long hold = 1_500 + random.nextInt(3_000);
                switch (action) {
                    case 0 -> {
                        say("round " + round + ": SIGKILL " + n.id() + role(role) + ", restart it after " + hold + " ms");
                        n.kill();
                        Thread.sleep(hold); // the fault lasts this long: the schedule is the point
                        cluster.restart(List.of(n.id()));
                        faults.merge("kills", 1L, Long::sum);
                    }
                    case 1 -> {
                        say("round " + round + ": SIGSTOP " + n.id() + role(role) + " for " + hold + " ms, then SIGCONT");
                        n.freeze();
                        Thread.sleep(hold); // the fault lasts this long: the schedule is the point
                        n.thaw();
                        faults.merge("freezes", 1L, Long::sum);
                    }
                    default -> {
                        say("round " + round + ": clean restart of " + n.id() + role(role) + " (SIGTERM)");
                        n.stop();
                        cluster.restart(List.of(n.id()));
                        faults.merge("clean restarts", 1L, Long::sum);
                    }
                }
                awaitAllUp(cluster);
                Thread.sleep(1_000 + random.nextInt(2_000)); // calm between faults, drawn from the seed
            }
        }

        private static String role(int role) {
            return role < 3 ? " (" + List.of("the quorum stream's", "the leader stream's", "the cache's").get(role)
                    + " leader)" : "";
        }

        /** The node leading unit {@code role} (0 quorum stream, 1 leader stream, 2 cache) now, or null if unknown. */
        private NodeProcess leaderOf(LocalCluster cluster, int role) {
            String name = List.of(QUORUM_STREAM, LEADER_STREAM, QUORUM_CACHE).get(role);
            for (NodeProcess asked : cluster.nodes()) {
                try {
                    String leader = cluster.status(asked.id()).shards().stream().filter(s -> s.name().equals(name))
                            .map(ClusterShardStatus::leader).filter(java.util.Objects::nonNull).findFirst().orElse(null);
                    for (NodeProcess n : cluster.nodes()) {
                        if (n.id().equals(leader)) {
                            return n;
                        }
                    }
                    return null;
                } catch (RuntimeException e) {
                    // that node does not answer: ask the next
                }
            }
            return null;
        }

        private void awaitAllUp(LocalCluster cluster) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            int asked = 0;
            while (System.nanoTime() < deadline) {
                try {
                    // Ask the nodes in turn; never draw from the seeded schedule here: how many polls a
                    // recovery takes depends on timing, and the schedule must not.
                    var status = cluster.status("n" + (1 + asked++ % 3));
                    if (status.nodes().stream().allMatch(s -> "up".equals(s.status()))) {
                        return;
                    }
                } catch (RuntimeException e) {
                    // that node is still starting: ask again
                }
                Thread.sleep(200); // polling other processes' view: nothing to wait on here
            }
            problems.add("the cluster did not see all three nodes up within 60 s after a fault");
        }

        private void awaitOnline(LocalCluster cluster, String stream) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                for (NodeProcess n : cluster.nodes()) {
                    try {
                        ClusterShardStatus s = cluster.shard(n.id(), stream, 0);
                        if (s != null && "online".equals(s.status())) {
                            return;
                        }
                    } catch (RuntimeException e) {
                        // ask the next node
                    }
                }
                Thread.sleep(200); // polling other processes' view: nothing to wait on here
            }
            problems.add(stream + " was not served within 60 s after every node came back");
        }

        private void check(FelixCluster client, Writer writer, Reader live, Reader relayed) {
            String name = writer.stream;
            Map<Long, String> all = new HashMap<>();
            List<String> found = new ArrayList<>();
            try (ClusterSubscription s = client.subscribe(StreamRef.parse(name), 0, StartPosition.EARLIEST)) {
                long expected = 0;
                long target = Math.max(writer.highestAck(), live.next.get() - 1) + 1;
                long quietSince = System.nanoTime();
                while (true) {
                    Item item = s.next(Duration.ofSeconds(1));
                    if (item == null) {
                        if (expected >= target && System.nanoTime() - quietSince > Duration.ofSeconds(3).toNanos()) {
                            break;
                        }
                        if (System.nanoTime() - quietSince > Duration.ofSeconds(60).toNanos()) {
                            found.add("the final read of " + name + " stopped at offset " + expected + " of " + target);
                            break;
                        }
                        continue;
                    }
                    quietSince = System.nanoTime();
                    if (item instanceof Gap g) {
                        found.add(name + " served a gap " + g);
                        continue;
                    }
                    Event e = (Event) item;
                    if (e.offset() != expected) {
                        found.add(name + " jumped from offset " + expected + " to " + e.offset());
                    }
                    all.put(e.offset(), new String(e.payload(), StandardCharsets.UTF_8));
                    expected = e.offset() + 1;
                }
            } catch (FelixClientException e) {
                found.add("the final read of " + name + " failed: " + e.getMessage());
            }
            writer.acked.forEach((offset, payload) -> {
                if (!payload.equals(all.get(offset))) {
                    found.add(name + ": acknowledged '" + payload + "' at " + offset + " but read '" + all.get(offset)
                            + "'");
                }
            });
            live.seen.forEach((offset, payload) -> {
                if (all.containsKey(offset) && !payload.equals(all.get(offset))) {
                    found.add(name + " forked at " + offset + ": '" + payload + "' then '" + all.get(offset) + "'");
                }
            });
            live.problems.forEach(p -> found.add(name + ": " + p));
            relayed.seen.forEach((offset, payload) -> {
                if (all.containsKey(offset) && !payload.equals(all.get(offset))) {
                    found.add(name + " forked at " + offset + " for the relayed reader: '" + payload + "' then '"
                            + all.get(offset) + "'");
                }
            });
            relayed.problems.forEach(p -> found.add(name + " (relayed reader): " + p));
            Map<String, Integer> copies = new HashMap<>();
            all.values().forEach(p -> copies.merge(p, 1, Integer::sum));
            long duplicates = 0;
            for (Map.Entry<String, Integer> c : copies.entrySet()) {
                if (c.getValue() > 1) {
                    duplicates += c.getValue() - 1;
                    if (!writer.uncertain.contains(c.getKey())) {
                        found.add(name + ": '" + c.getKey() + "' stored " + c.getValue() + " times although every"
                                + " publish of it was answered at once");
                    }
                }
            }
            if (writer.acked.isEmpty()) {
                found.add(name + ": no publish was acknowledged at all");
            }
            say(name + ": " + writer.acked.size() + " acknowledged, " + writer.failed.get() + " failed publishes, "
                    + all.size() + " records read back, " + duplicates + " duplicate(s) from uncertain retries, "
                    + live.seen.size() + " seen live (" + live.restarts.get() + " reader restart(s)), "
                    + relayed.seen.size() + " through one node's relay (" + relayed.restarts.get() + " restart(s))"
                    + (found.isEmpty() ? ": OK" : ": " + found.size() + " problem(s)"));
            found.stream().limit(20).forEach(p -> say("  FAIL " + p));
            problems.addAll(found);
        }

        /**
         * The cache's promises: every acknowledged put reads back with its value from whichever node leads the
         * cache now, no two acknowledged puts share an offset, and the mirror that followed the cache through
         * every fault converged on the same entries.
         */
        private void checkCache(CacheWriter cache, ClusterMirror mirror) throws InterruptedException {
            long highest = cache.acked.values().stream().mapToLong(Long::longValue).max().orElse(-1);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!(mirror.caughtUp() && mirror.appliedOffset() > highest) && System.nanoTime() < deadline) {
                Thread.sleep(100); // the mirror applies changes on its own thread: polling its position
            }
            List<String> found = new ArrayList<>();
            if (mirror.endCause() != null) {
                found.add(cache.cache + ": the mirror ended: " + mirror.endCause().getMessage());
            } else if (mirror.appliedOffset() <= highest) {
                found.add(cache.cache + ": the mirror stopped at offset " + mirror.appliedOffset() + ", short of "
                        + (highest + 1));
            }
            found.addAll(cache.check(mirror.snapshot()));
            say(cache.cache + ": " + cache.acked.size() + " acknowledged puts, " + cache.failed.get()
                    + " failed (each retried), " + cache.uncertain.size() + " uncertain, mirror followed "
                    + mirror.homes() + " home(s)" + (found.isEmpty() ? ": OK" : ": " + found.size() + " problem(s)"));
            found.stream().limit(20).forEach(p -> say("  FAIL " + p));
            problems.addAll(found);
        }

        private void report(LocalCluster cluster, FelixCluster client, Writer quorum, Writer leader, CacheWriter cache,
                ClusterMirror mirror) throws IOException {
            long leaderChanges = 0;
            for (String s : List.of(QUORUM_STREAM, LEADER_STREAM, QUORUM_CACHE)) {
                ClusterShardStatus st = client.anyNode().cluster().status().shards().stream()
                        .filter(x -> x.name().equals(s)).findFirst().orElseThrow();
                leaderChanges += st.epoch() - 1;
            }
            long truncations = 0;
            long promotions = 0;
            try (Stream<Path> files = Files.list(cluster.directory().resolve("logs"))) {
                for (Path f : files.toList()) {
                    for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                        if (line.contains("truncating the replica log")) {
                            truncations++;
                        } else if (line.contains("leading ") && line.contains(" at epoch ")) {
                            promotions++;
                        }
                    }
                }
            }
            out.println();
            out.println("  faults injected   " + faults);
            out.println("  acknowledged      quorum " + quorum.acked.size() + ", leader " + leader.acked.size()
                    + ", cache " + cache.acked.size() + " (mirror followed " + mirror.homes() + " home(s))");
            out.println("  failed publishes  quorum " + quorum.failed.get() + ", leader " + leader.failed.get()
                    + " (each retried by the writer)");
            out.println("  leader changes    " + leaderChanges + " (epochs past the first), " + promotions
                    + " 'leading' start(s) logged");
            out.println("  truncations       " + truncations + " (replica logs cut back to their leader's)");
            out.println("  SDK               " + client.redirects() + " redirect(s), " + client.retries() + " retry(ies), "
                    + client.resubscriptions() + " resubscription(s)");
        }
    }

    /** Publishes {@code <stream>-<n>} in order; a failed publish is sent again (and may then be stored twice). */
    static final class Writer implements Runnable {
        final String stream;
        final FelixCluster client;
        final Map<Long, String> acked = new ConcurrentHashMap<>();
        /** Payloads whose publish failed or was retried after an unknown outcome: they may be stored twice. */
        final Set<String> uncertain = ConcurrentHashMap.newKeySet();
        final AtomicLong failed = new AtomicLong();
        private final AtomicLong highest = new AtomicLong(-1);
        private volatile boolean stop;

        Writer(FelixCluster client, String stream) {
            this.client = client;
            this.stream = stream;
        }

        @Override
        public void run() {
            ClusterPublisher opened = null;
            while (opened == null && !stop) {
                try {
                    opened = client.publisher(StreamRef.parse(stream));
                } catch (FelixClientException e) {
                    failed.incrementAndGet(); // no node answered the stream's description: try again
                }
            }
            if (opened == null) {
                return;
            }
            try (ClusterPublisher publisher = opened) {
                long n = 0;
                while (!stop) {
                    String payload = stream.substring(stream.lastIndexOf('/') + 1) + "-" + n;
                    try {
                        PublishAck ack = publisher.publish(payload.getBytes(StandardCharsets.UTF_8));
                        if (publisher.lastPublishMayBeDuplicate()) {
                            uncertain.add(payload);
                        }
                        acked.put(ack.firstOffset(), payload);
                        highest.accumulateAndGet(ack.firstOffset(), Math::max);
                        n++;
                    } catch (FelixClientException e) {
                        uncertain.add(payload); // sent again below: both copies may be stored
                        failed.incrementAndGet();
                    }
                }
            }
        }

        long highestAck() {
            return highest.get();
        }

        void stop() {
            stop = true;
        }
    }

    /**
     * Follows a stream from offset 0 through every fault, noting each offset's payload and any hole: on the shard's
     * leader, or always through one node ({@code via}, read at each subscribe: a restarted node has a new port),
     * which relays the shard while another node leads it.
     */
    static final class Reader implements Runnable {
        final FelixCluster client;
        final String stream;
        final java.util.function.Supplier<java.net.InetSocketAddress> via;
        final Map<Long, String> seen = new ConcurrentHashMap<>();
        final List<String> problems = new java.util.concurrent.CopyOnWriteArrayList<>();
        final AtomicLong next = new AtomicLong();
        final AtomicLong restarts = new AtomicLong();
        private volatile boolean stop;

        Reader(FelixCluster client, String stream, java.util.function.Supplier<java.net.InetSocketAddress> via) {
            this.via = via;
            this.client = client;
            this.stream = stream;
        }

        @Override
        public void run() {
            while (!stop) {
                try (ClusterSubscription s = client.subscribe(StreamRef.parse(stream), 0,
                        StartPosition.offset(next.get()), via == null ? null : via.get())) {
                    while (!stop) {
                        Item item = s.next(Duration.ofSeconds(5));
                        if (item instanceof Gap g) {
                            problems.add("the live reader got a gap " + g);
                        } else if (item instanceof Event e) {
                            if (e.offset() != next.get()) {
                                problems.add("the live reader jumped from " + next.get() + " to " + e.offset());
                            }
                            seen.put(e.offset(), new String(e.payload(), StandardCharsets.UTF_8));
                            next.set(e.offset() + 1);
                        }
                    }
                } catch (FelixClientException e) {
                    restarts.incrementAndGet(); // no leader within the timeout: subscribe again
                }
            }
        }

        void awaitReaching(long offset, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (next.get() < offset && System.nanoTime() < deadline) {
                Thread.sleep(50); // the reader thread advances it: polling a counter
            }
            if (next.get() < offset) {
                problems.add("the live reader stopped at " + next.get() + ", short of " + offset);
            }
        }

        void stop() {
            stop = true;
        }
    }
}
