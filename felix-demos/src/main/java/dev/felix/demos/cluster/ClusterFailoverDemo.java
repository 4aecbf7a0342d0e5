package dev.felix.demos.cluster;

import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.Item;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.demos.common.Terminal;
import dev.felix.storage.LogConfig;
import dev.felix.storage.LogId;
import dev.felix.storage.ReadResult;
import dev.felix.storage.SegmentedLog;
import dev.felix.storage.StorageRuntime;
import dev.felix.wire.ClusterShardStatus;
import dev.felix.wire.ErrorCode;
import dev.felix.wire.ReplicaLag;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code felix demo cluster-failover}: a {@code quorum} record survives SIGKILL of the broker that
 * acknowledged it and is read back from the promoted replica; the old leader, restarted from its disk,
 * rejoins as a follower, truncates the record a majority never held (its publisher was refused with
 * {@code quorum_timeout} while the followers were down), and converges. Three real node processes, killed
 * and restarted; every outcome is checked and the demo exits 1 if any differs.
 */
public final class ClusterFailoverDemo {

    static final String STREAM = "t1/default/failover";
    static final Duration QUORUM_WINDOW = Duration.ofSeconds(5);
    static final Duration MARGIN = Duration.ofSeconds(3);
    static final String QUORUM_TEXT = "the batch is durable here but did not reach a majority within 5s";

    private ClusterFailoverDemo() {
    }

    static String usage() {
        return """
            usage: felix demo cluster-failover [--dir DIR] [--no-tui]

            Starts three felix server processes as a cluster on loopback, creates a durable quorum stream
            replicated three ways, and shows that a quorum-acknowledged record survives SIGKILL of the
            broker that acknowledged it, while a record no majority held is refused to its publisher and
            later truncated from the old leader's disk when it rejoins. Exits 0 only if every check held.

              --dir DIR   where the nodes keep their data and logs (default: a new temporary directory)
              --no-tui    plain text output instead of the live terminal view
            """;
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        Path dir = null;
        boolean live = true;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h")) {
                out.print(usage());
                return 0;
            } else if (a.equals("--no-tui")) {
                live = false;
            } else if (a.equals("--dir") && i + 1 < args.length) {
                dir = Path.of(args[++i]);
            } else if (a.startsWith("--dir=")) {
                dir = Path.of(a.substring("--dir=".length()));
            } else {
                err.println("error: unknown argument '" + a + "'");
                err.println("(see --help)");
                return 2;
            }
        }
        try {
            if (dir == null) {
                dir = Files.createTempDirectory("felix-cluster-failover");
            }
            List<String> problems;
            try (ClusterDemoLog log = new ClusterDemoLog(out, Terminal.useLiveView(live, err),
                    "felix demo cluster-failover — a quorum record survives its leader; a refused one does not")) {
                problems = scenario(dir, log);
            }
            out.println();
            out.println(problems.isEmpty()
                    ? "RESULT: as promised — the quorum-acknowledged record was read back from the promoted replica at"
                            + " its offset; the refused record was truncated from the old leader, which converged"
                    : "RESULT: NOT AS PROMISED — " + String.join("; ", problems));
            out.println("(node data and logs: " + dir + ")");
            return problems.isEmpty() ? 0 : 1;
        } catch (Exception e) {
            err.println("error: " + e.getMessage());
            return 1;
        }
    }

    static List<String> scenario(Path dir, ClusterDemoLog log) throws Exception {
        log.step("starting three nodes (n1 bootstraps, n2 and n3 join)");
        try (LocalCluster cluster = LocalCluster.start(dir, 3, List.of())) {
            log.watch(cluster::nodes);
            StreamRef ref = StreamRef.parse(STREAM);
            try (FelixClient c = cluster.connect("n1")) {
                c.streams().create(ref, new StreamSpec(1, true, "on_commit", null, null).replicated("quorum", 3));
            }
            ClusterShardStatus placed = cluster.awaitShard("n1", STREAM, 0, Duration.ofSeconds(30),
                    s -> "online".equals(s.status()), "the stream's placement");
            String leader = placed.leader();
            List<String> followers = LocalCluster.followersOf(placed);
            log.step("created " + STREAM + " (quorum, 3 replicas): leader " + leader + " at epoch " + placed.epoch()
                    + ", followers " + followers);

            long acked;
            try (FelixClient c = cluster.connect(leader)) {
                acked = publishWithRetry(c, ref, "acked-by-a-majority");
            }
            log.ok("\"acked-by-a-majority\" acknowledged at offset " + acked + " (a majority holds it)");

            // Killed, not frozen: a frozen process keeps its socket buffers, so a record shipped to it while
            // frozen is appended when it thaws and may yet reach a majority (then it commits, as promised).
            // Killing them makes sure no replica but the leader ever holds the refused record.
            for (String f : followers) {
                cluster.node(f).kill();
            }
            log.step("killed both followers (" + String.join(", ", followers) + ") with SIGKILL");
            long started = System.nanoTime();
            String refusal = null;
            try (FelixClient c = cluster.connect(leader)) {
                c.publisher(ref).publish("refused-no-majority".getBytes(StandardCharsets.UTF_8));
                log.fail("a publish with both followers frozen was acknowledged");
            } catch (FelixClientException e) {
                refusal = e.code() + ": " + e.brokerMessage();
                log.check(e.code() == ErrorCode.QUORUM_TIMEOUT && QUORUM_TEXT.equals(e.brokerMessage()),
                        "the publisher was told: publish failed: " + e.brokerMessage());
            }
            double took = (System.nanoTime() - started) / 1e9;
            log.check(refusal != null && took >= QUORUM_WINDOW.toSeconds() - 0.5
                            && took <= QUORUM_WINDOW.plus(MARGIN).toSeconds(),
                    String.format("refused after %.1f s (the window is %d s, margin %d s)", took,
                            QUORUM_WINDOW.toSeconds(), MARGIN.toSeconds()));

            cluster.node(leader).kill();
            log.step("killed the leader " + leader + " (SIGKILL) with the refused record in its log only");
            cluster.restart(followers);
            log.step("restarted " + String.join(", ", followers) + " from their data directories (together: each"
                    + " waits for a metadata majority)");

            String witness = followers.get(0);
            ClusterShardStatus promoted = cluster.awaitShard(witness, STREAM, 0, Duration.ofSeconds(60),
                    s -> "online".equals(s.status()) && followers.contains(s.leader()) && s.epoch() > placed.epoch(),
                    "a replica's promotion");
            log.ok("promoted " + promoted.leader() + " at epoch " + promoted.epoch() + " (a fenced replica holding every"
                    + " acknowledged record)");
            String newLeader = promoted.leader();

            try (FelixClient c = cluster.connect(newLeader)) {
                String back = readAt(c, ref, acked);
                log.check("acked-by-a-majority".equals(back), "offset " + acked + " read back from " + newLeader
                        + ": \"" + back + "\"");
                long next = publishWithRetry(c, ref, "after-failover");
                log.check(next == acked + 1, "\"after-failover\" acknowledged at offset " + next
                        + " (where the refused record sat on the old leader)");
            }

            cluster.node(leader).restart();
            log.step("restarted " + leader + " from its data directory");
            cluster.awaitShard(newLeader, STREAM, 0, Duration.ofSeconds(60), s -> s.lag() != null && s.lag().stream()
                    .anyMatch(l -> l.node().equals(leader) && l.records() == 0), leader + " catching up");
            log.ok(leader + " follows " + newLeader + " and has caught up (lag 0)");

            cluster.node(leader).stop();
            List<String> onDisk = readLog(dir.resolve(leader), acked, 2);
            log.check(onDisk.equals(List.of("acked-by-a-majority", "after-failover")),
                    leader + "'s log from offset " + acked + ": " + onDisk + " (the refused record was truncated)");
            return log.problems();
        }
    }

    /** Publishes one record, retrying while the shard is still settling; returns its offset. */
    static long publishWithRetry(FelixClient c, StreamRef ref, String payload) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                return c.publisher(ref).publish(payload.getBytes(StandardCharsets.UTF_8)).firstOffset();
            } catch (FelixClientException e) {
                if (e.code() != ErrorCode.UNAVAILABLE || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100); // the new leader is still taking over
            }
        }
    }

    /** The payload at {@code offset}, read by a subscription starting there. */
    static String readAt(FelixClient c, StreamRef ref, long offset) {
        // The metadata may already name a node the leader while that node is still taking over (adopting what
        // its replicas hold, opening its log): it answers unavailable or not_leader until then. Try again for
        // a bounded time; any other error, or no answer within it, is the demo's failure.
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                return readOnce(c, ref, offset);
            } catch (FelixClientException e) {
                boolean takingOver = e.code() == ErrorCode.UNAVAILABLE || e.code() == ErrorCode.NOT_LEADER;
                if (!takingOver || System.nanoTime() > deadline) {
                    throw e;
                }
            }
            try {
                Thread.sleep(200); // the node finishes taking over on its own: nothing to wait on from here
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "(interrupted)";
            }
        }
    }

    private static String readOnce(FelixClient c, StreamRef ref, long offset) {
        try (Subscription s = c.subscribe(SubscribeOptions.of(ref).fromOffset(offset))) {
            Item item = s.next(Duration.ofSeconds(20));
            if (item instanceof Event e && e.offset() == offset) {
                return new String(e.payload(), StandardCharsets.UTF_8);
            }
            return "(nothing: " + item + ")";
        }
    }

    /** {@code count} payloads from {@code from} in a stopped node's log of the demo stream, read from disk. */
    static List<String> readLog(Path dataDir, long from, int count) throws IOException {
        String prefix = new LogId("t1", "default", "failover", 0).directoryName() + ".";
        Path dir;
        try (Stream<Path> all = Files.list(dataDir.resolve("logs"))) {
            dir = all.filter(p -> p.getFileName().toString().startsWith(prefix)).findFirst()
                    .orElseThrow(() -> new IOException("no log of " + STREAM + " under " + dataDir));
        }
        try (StorageRuntime rt = StorageRuntime.builder().flushThreads(1).build();
                SegmentedLog log = SegmentedLog.open(dir, LogConfig.builder().build(), rt)) {
            ReadResult r = log.read(from, count, 1 << 20);
            if (!(r instanceof ReadResult.Records records)) {
                return List.of("(" + r + ")");
            }
            return records.records().stream().map(rec -> new String(rec.payload(), StandardCharsets.UTF_8)).toList();
        }
    }

    static boolean lagZero(ClusterShardStatus s, String node) {
        return s.lag() != null && s.lag().stream().anyMatch(l -> l.node().equals(node) && l.records() == 0);
    }

    static long lagOf(ClusterShardStatus s, String node) {
        return s.lag() == null ? -1 : s.lag().stream().filter(l -> l.node().equals(node)).mapToLong(ReplicaLag::records)
                .findFirst().orElse(-1);
    }
}
