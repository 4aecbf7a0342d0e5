package dev.felix.demos.cluster;

import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.demos.common.Terminal;
import dev.felix.wire.ClusterShardStatus;
import dev.felix.wire.ErrorCode;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code felix demo cluster-consistency}: two durable streams, identical but for their consistency, each
 * replicated three ways on three real node processes, each stream's own followers frozen in turn.
 * <ul>
 *   <li>{@code quorum}: with its followers frozen a publish is refused within the window plus a margin,
 *       with the exact text; the shard keeps answering reads; the publisher still holds the record.</li>
 *   <li>{@code leader}: the publish is acknowledged from the leader's log; the leader is then killed and the
 *       followers thawed (alive, reachable): for three times the failure-detection time every node answers
 *       with the exact {@code unavailable} text and no epoch changes; then the old leader restarts from its
 *       disk and the acknowledged record is read back at its acknowledged offset.</li>
 * </ul>
 * A table at the end says what each mode bought. Exits 1 if any outcome differs.
 */
public final class ClusterConsistencyDemo {

    static final String QUORUM_STREAM = "t1/default/orders-quorum";
    static final String LEADER_STREAM = "t1/default/orders-leader";
    static final String LEADER_GONE = "the leader is gone and no replica holding this shard's log can take over";
    /** The nodes' failure timeout (their default). */
    static final Duration FAILURE_DETECTION = Duration.ofSeconds(3);

    private ClusterConsistencyDemo() {
    }

    static String usage() {
        return """
            usage: felix demo cluster-consistency [--pace N] [--dir DIR] [--no-tui]

            Starts three felix server processes as a cluster on loopback with two durable streams,
            identical but for consistency (quorum, leader), replicated three ways, and freezes each
            stream's own followers in turn (SIGSTOP) to show what each mode promises when replicas
            stop answering. Exits 0 only if every check held.

              --pace N    publishes per second before the faults, per stream (default 20; 1 to 1000)
              --dir DIR   where the nodes keep their data and logs (default: a new temporary directory)
              --no-tui    plain text output instead of the live terminal view
            """;
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        Path dir = null;
        boolean live = true;
        int pace = 20;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String value = null;
            if (a.contains("=")) {
                value = a.substring(a.indexOf('=') + 1);
                a = a.substring(0, a.indexOf('='));
            }
            switch (a) {
                case "--help", "-h" -> {
                    out.print(usage());
                    return 0;
                }
                case "--no-tui" -> live = false;
                case "--dir", "--pace" -> {
                    if (value == null) {
                        if (i + 1 >= args.length) {
                            err.println("error: " + a + " needs a value");
                            return 2;
                        }
                        value = args[++i];
                    }
                    if (a.equals("--dir")) {
                        dir = Path.of(value);
                    } else {
                        try {
                            pace = Integer.parseInt(value);
                        } catch (NumberFormatException e) {
                            pace = -1;
                        }
                        if (pace < 1 || pace > 1000) {
                            err.println("error: --pace must be a whole number within [1, 1000], got '" + value + "'");
                            return 2;
                        }
                    }
                }
                default -> {
                    err.println("error: unknown argument '" + args[i] + "'");
                    err.println("(see --help)");
                    return 2;
                }
            }
        }
        try {
            if (dir == null) {
                dir = Files.createTempDirectory("felix-cluster-consistency");
            }
            Outcome q;
            Outcome l;
            List<String> problems;
            try (ClusterDemoLog log = new ClusterDemoLog(out, Terminal.useLiveView(live, err),
                    "felix demo cluster-consistency — leader vs quorum when replicas stop answering")) {
                Outcome[] both = scenario(dir, pace, log);
                q = both[0];
                l = both[1];
                problems = log.problems();
            }
            out.println();
            out.printf("%-10s %-44s %s%n", "MODE", "WHEN YOU LEARN OF THE FAULT", "WHAT YOU HOLD WHILE YOU WAIT");
            out.printf("%-10s %-44s %s%n", "quorum", q.learned, q.held);
            out.printf("%-10s %-44s %s%n", "leader", l.learned, l.held);
            out.println();
            out.println(problems.isEmpty()
                    ? "RESULT: as promised — quorum refused what no majority held and kept serving reads; leader"
                            + " acknowledged alone, stayed unavailable without its leader, and served the record at"
                            + " its offset when the leader returned with its disk"
                    : "RESULT: NOT AS PROMISED — " + String.join("; ", problems));
            out.println("(node data and logs: " + dir + ")");
            return problems.isEmpty() ? 0 : 1;
        } catch (Exception e) {
            err.println("error: " + e.getMessage());
            return 1;
        }
    }

    /** What a mode bought, for the closing table. */
    record Outcome(String learned, String held) {
    }

    static Outcome[] scenario(Path dir, int pace, ClusterDemoLog log) throws Exception {
        log.step("starting three nodes (n1 bootstraps, n2 and n3 join)");
        try (LocalCluster cluster = LocalCluster.start(dir, 3, List.of())) {
            log.watch(cluster::nodes);
            StreamRef quorum = StreamRef.parse(QUORUM_STREAM);
            StreamRef leaderMode = StreamRef.parse(LEADER_STREAM);
            try (FelixClient c = cluster.connect("n1")) {
                c.streams().create(quorum, new StreamSpec(1, true, "on_commit", null, null).replicated("quorum", 3));
                c.streams().create(leaderMode, new StreamSpec(1, true, "on_commit", null, null).replicated("leader", 3));
            }
            ClusterShardStatus q0 = cluster.awaitShard("n1", QUORUM_STREAM, 0, Duration.ofSeconds(30),
                    s -> "online".equals(s.status()), "the quorum stream's placement");
            ClusterShardStatus l0 = cluster.awaitShard("n1", LEADER_STREAM, 0, Duration.ofSeconds(30),
                    s -> "online".equals(s.status()), "the leader stream's placement");
            log.step(QUORUM_STREAM + ": leader " + q0.leader() + "; " + LEADER_STREAM + ": leader " + l0.leader());

            Outcome q = quorumArm(cluster, quorum, q0, pace, log);
            Outcome l = leaderArm(cluster, leaderMode, l0, pace, log);
            return new Outcome[] {q, l};
        }
    }

    private static Outcome quorumArm(LocalCluster cluster, StreamRef ref, ClusterShardStatus placed, int pace,
            ClusterDemoLog log) throws Exception {
        List<String> followers = LocalCluster.followersOf(placed);
        long lastAcked;
        try (FelixClient c = cluster.connect(placed.leader())) {
            lastAcked = publishPaced(c, ref, "q", pace);
            log.ok("quorum: " + pace + " records acknowledged, the last at offset " + lastAcked);
            for (String f : followers) {
                cluster.node(f).freeze();
            }
            log.step("quorum: froze its followers " + followers);
            byte[] record = "q-while-frozen".getBytes(StandardCharsets.UTF_8);
            long started = System.nanoTime();
            String learned = "never";
            try {
                c.publisher(ref).publish(record);
                log.fail("quorum: a publish with both followers frozen was acknowledged");
            } catch (FelixClientException e) {
                double took = (System.nanoTime() - started) / 1e9;
                log.check(e.code() == ErrorCode.QUORUM_TIMEOUT
                                && ClusterFailoverDemo.QUORUM_TEXT.equals(e.brokerMessage()),
                        "quorum: publish failed: " + e.brokerMessage());
                log.check(took <= ClusterFailoverDemo.QUORUM_WINDOW.plus(ClusterFailoverDemo.MARGIN).toSeconds(),
                        String.format("quorum: refused after %.1f s (window 5 s + 3 s margin)", took));
                learned = String.format("at publish: refused after %.1f s", took);
            }
            // The publisher still holds its record (it was never acknowledged): it may retry later.
            log.check(record.length > 0, "quorum: the publisher still holds \"q-while-frozen\" to retry (a retry may"
                    + " duplicate it: the leader keeps it in its log)");
            String read = ClusterFailoverDemo.readAt(c, ref, lastAcked);
            log.check(read.equals("q" + (pace - 1)), "quorum: the shard still answers reads: offset " + lastAcked
                    + " = \"" + read + "\"");
            for (String f : followers) {
                cluster.node(f).thaw();
            }
            log.step("quorum: thawed " + followers);
            return new Outcome(learned, "every acknowledged record, readable throughout");
        }
    }

    private static Outcome leaderArm(LocalCluster cluster, StreamRef ref, ClusterShardStatus placed, int pace,
            ClusterDemoLog log) throws Exception {
        List<String> followers = LocalCluster.followersOf(placed);
        String leader = placed.leader();
        long acked;
        try (FelixClient c = cluster.connect(leader)) {
            publishPaced(c, ref, "l", pace);
            for (String f : followers) {
                cluster.node(f).freeze();
            }
            log.step("leader: froze its followers " + followers);
            long started = System.nanoTime();
            acked = c.publisher(ref).publish("l-while-frozen".getBytes(StandardCharsets.UTF_8)).firstOffset();
            log.ok(String.format("leader: \"l-while-frozen\" acknowledged at offset %d in %.0f ms, from the leader's"
                    + " log alone", acked, (System.nanoTime() - started) / 1e6));
        }
        cluster.node(leader).kill();
        log.step("leader: killed its leader " + leader + " (SIGKILL)");
        for (String f : followers) {
            cluster.node(f).thaw();
        }
        log.step("leader: thawed " + followers + " (alive and reachable)");
        cluster.awaitShard(followers.get(0), LEADER_STREAM, 0, Duration.ofSeconds(30),
                s -> LEADER_GONE.equals(s.status()), "the shard turning unavailable");
        long watchUntil = System.nanoTime() + FAILURE_DETECTION.multipliedBy(3).toNanos();
        int answers = 0;
        List<String> wrong = new ArrayList<>();
        while (System.nanoTime() < watchUntil) {
            for (String node : followers) {
                ClusterShardStatus s = cluster.shard(node, LEADER_STREAM, 0);
                if (!LEADER_GONE.equals(s.status()) || s.epoch() != placed.epoch()) {
                    wrong.add(node + " status: " + s.status() + " at epoch " + s.epoch());
                }
                try (FelixClient c = cluster.connect(node)) {
                    try {
                        c.publisher(ref).publish("must-not-land".getBytes(StandardCharsets.UTF_8));
                        wrong.add(node + " acknowledged a publish");
                    } catch (FelixClientException e) {
                        if (e.code() != ErrorCode.UNAVAILABLE || !LEADER_GONE.equals(e.brokerMessage())) {
                            wrong.add(node + " publish: " + e.getMessage());
                        }
                    }
                    try (Subscription ignored = c.subscribe(SubscribeOptions.of(ref).fromEarliest())) {
                        wrong.add(node + " accepted a subscription");
                    } catch (FelixClientException e) {
                        if (e.code() != ErrorCode.UNAVAILABLE || !LEADER_GONE.equals(e.brokerMessage())) {
                            wrong.add(node + " subscribe: " + e.getMessage());
                        }
                    }
                }
                answers++;
            }
        }
        log.check(wrong.isEmpty(), "leader: for " + FAILURE_DETECTION.multipliedBy(3).toSeconds() + " s (3 x failure"
                + " detection) every node, publish, subscribe and cluster status said \"" + LEADER_GONE + "\" at epoch "
                + placed.epoch() + " (" + answers + " rounds)" + (wrong.isEmpty() ? "" : ": " + wrong.subList(0,
                Math.min(3, wrong.size()))));
        cluster.node(leader).restart();
        log.step("leader: restarted " + leader + " from its data directory");
        ClusterShardStatus back = cluster.awaitShard(followers.get(0), LEADER_STREAM, 0, Duration.ofSeconds(60),
                s -> "online".equals(s.status()) && leader.equals(s.leader()), "the leader's return");
        log.ok("leader: " + leader + " leads again at epoch " + back.epoch());
        try (FelixClient c = cluster.connect(leader)) {
            String read = ClusterFailoverDemo.readAt(c, ref, acked);
            log.check("l-while-frozen".equals(read), "leader: offset " + acked + " read back: \"" + read + "\"");
        }
        return new Outcome("only when you read: unavailable until the leader returns",
                "every acknowledged record, on the leader's disk");
    }

    /** Publishes {@code count} records ({@code prefix0..}) at {@code pace} per second; returns the last offset. */
    private static long publishPaced(FelixClient c, StreamRef ref, String prefix, int count) throws InterruptedException {
        long last = -1;
        long interval = 1_000_000_000L / count;
        long next = System.nanoTime();
        for (int i = 0; i < count; i++) {
            last = ClusterFailoverDemo.publishWithRetry(c, ref, prefix + i);
            next += interval;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000)); // pacing, not waiting for a condition
            }
        }
        return last;
    }
}
