package dev.felix.demos.cluster;

import static dev.felix.demos.cluster.NodeMetrics.DEPOSED;
import static dev.felix.demos.cluster.NodeMetrics.DOWN;
import static dev.felix.demos.cluster.NodeMetrics.HEARTBEATS;
import static dev.felix.demos.cluster.NodeMetrics.UP;
import static dev.felix.demos.cluster.NodeMetrics.awaitAllUp;
import static dev.felix.demos.cluster.NodeMetrics.perNode;
import static dev.felix.demos.cluster.NodeMetrics.statuses;
import static dev.felix.demos.cluster.NodeMetrics.sum;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.FelixClient;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real {@code felix server} processes behind TCP proxies ({@link LocalCluster#startBehindProxies}); the Raft
 * leader is cut off from the other two, both ways, while it keeps running (a network partition, not a pause), then
 * the partition heals. Only the Raft traffic is cut: clients and replication are not proxied.
 *
 * <p>The majority elects a new leader, which declares the cut-off node down, and no one else. The cut-off node keeps
 * its process, its clock and its decider: it hears no heartbeat, steps down (Ratis steps a leader down once it has
 * not heard a majority for an election timeout, 1 s, before its decider's 2 s of silence), and commits no status
 * change. After the heal it rejoins and is declared up, once, and every node ends up.
 *
 * <p>With the default timeouts the cut-off leader steps down before it decides anything. With a failure timeout
 * shorter than Ratis' step-down (600 ms against 1 s), it decides first: it declares the others down, submits the
 * first decision to its own Raft server under its term ({@code Command.Decided}), and that entry, which no majority
 * can acknowledge, is never committed. When it steps down the decision fails as deposed (counted once; the round's
 * other decisions are dropped), and no other node is ever declared down or up.
 */
@Timeout(180)
class PartitionedRaftLeaderTest {


    /**
     * Heartbeats received by the majority's leader during the partition (two nodes, two a second each): about 4 s,
     * twice the 2 s failure timeout.
     */
    private static final int WINDOW_HEARTBEATS = 16;
    /** The same after the heal, from all three nodes. */
    private static final int HEALED_WINDOW_HEARTBEATS = 24;

    /** Kept when the test fails: the nodes' logs are under {@code logs/}. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @Test
    void aRaftLeaderCutOffFromTheOthers_aloneIsDeclaredDown_commitsNothing_andIsUpAgainAfterTheHeal() throws Exception {
        try (LocalCluster c = LocalCluster.startBehindProxies(dir, 3, List.of())) {
            NodeProcess cut = NodeMetrics.raftLeader(c.nodes());
            List<NodeProcess> majority = c.nodes().stream().filter(n -> n != cut).toList();
            try (FelixClient observer = c.connect(majority.get(0).id())) {
                awaitAllUp(observer);
                Map<String, Double> downBefore = perNode(c.nodes(), DOWN);
                Map<String, Double> upBefore = perNode(c.nodes(), UP);

                long start = System.nanoTime();
                int stalled = c.partitionRaft(cut.id());
                assertThat(stalled).as("Raft connections between %s and the others", cut.id()).isPositive();
                NodeProcess successor;
                try {
                    successor = NodeMetrics.raftLeader(majority);
                    System.out.printf("%s cut off (%d connections stalled), %s elected after %d ms (%s)%n", cut.id(),
                            stalled, successor.id(), (System.nanoTime() - start) / 1_000_000, dir);
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                            .until(() -> "down".equals(statuses(observer).get(cut.id())));
                    System.out.printf("%s declared down %d ms after the cut%n", cut.id(),
                            (System.nanoTime() - start) / 1_000_000);
                    // Ratis steps a leader down once it has not heard a majority for an election timeout.
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                            .until(() -> NodeMetrics.value(cut, "felix_raft_leader") == 0.0);
                    double heartbeats = sum(majority, HEARTBEATS);
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                            .until(() -> sum(majority, HEARTBEATS) >= heartbeats + WINDOW_HEARTBEATS);
                    // The majority side works: a metadata write through it commits.
                    observer.streams().create(StreamRef.parse("t1/default/during-the-partition"),
                            StreamSpec.ephemeral(1));
                    assertThat(statuses(observer)).as("nodes during the partition, as %s sees them",
                            majority.get(0).id()).containsEntry(cut.id(), "down")
                            .allSatisfy((node, status) -> assertThat(status).as(node)
                                    .isEqualTo(node.equals(cut.id()) ? "down" : "up"));
                } finally {
                    c.healRaft();
                }
                long healed = System.nanoTime();
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                        .until(() -> "up".equals(statuses(observer).get(cut.id())));
                System.out.printf("%s up again %d ms after the heal%n", cut.id(),
                        (System.nanoTime() - healed) / 1_000_000);
                double heartbeats = sum(c.nodes(), HEARTBEATS);
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                        .until(() -> sum(c.nodes(), HEARTBEATS) >= heartbeats + HEALED_WINDOW_HEARTBEATS);

                Map<String, Double> downAfter = perNode(c.nodes(), DOWN);
                Map<String, Double> upAfter = perNode(c.nodes(), UP);
                System.out.printf("down decisions before %s, after %s; up before %s, after %s; nodes %s%n",
                        downBefore, downAfter, upBefore, upAfter, statuses(observer));
                assertThat(downAfter.get(cut.id()) - downBefore.get(cut.id()))
                        .as("status changes to down committed by the cut-off %s", cut.id()).isZero();
                assertThat(upAfter.get(cut.id()) - upBefore.get(cut.id()))
                        .as("status changes to up committed by the cut-off %s", cut.id()).isZero();
                assertThat(delta(downAfter, downBefore)).as("status changes to down committed by any node: %s only",
                        cut.id()).isEqualTo(1.0);
                assertThat(delta(upAfter, upBefore)).as("status changes to up committed by any node: %s, once",
                        cut.id()).isEqualTo(1.0);
                assertThat(statuses(observer)).containsOnlyKeys("n1", "n2", "n3")
                        .allSatisfy((node, status) -> assertThat(status).as(node).isEqualTo("up"));
                // The healed node serves again: it knows the stream created while it was cut off.
                try (FelixClient healedClient = c.connect(cut.id())) {
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                            .until(() -> healedClient.streams().describe(
                                    StreamRef.parse("t1/default/during-the-partition")) != null);
                }
            }
        }
    }

    /**
     * Failure timeout 600 ms, heartbeats every 100 ms: the cut-off leader's decider sees both others silent for the
     * failure timeout before Ratis steps it down (an election timeout without a majority's answers, 1 s), and decides.
     */
    @Test
    void aCutOffLeaderThatDecidesBeforeItStepsDown_commitsNoneOfItsDecisions() throws Exception {
        List<String> shortTimeouts = List.of("--set", "cluster_failure_timeout_ms=600", "--set",
                "cluster_heartbeat_ms=100");
        try (LocalCluster c = LocalCluster.startBehindProxies(dir, 3, shortTimeouts)) {
            NodeProcess cut = NodeMetrics.raftLeader(c.nodes());
            List<NodeProcess> majority = c.nodes().stream().filter(n -> n != cut).toList();
            try (FelixClient observer = c.connect(majority.get(0).id())) {
                awaitAllUp(observer);
                Map<String, Double> downBefore = perNode(c.nodes(), DOWN);
                Map<String, Double> upBefore = perNode(c.nodes(), UP);
                double deposedBefore = NodeMetrics.value(cut, DEPOSED);

                long start = System.nanoTime();
                assertThat(c.partitionRaft(cut.id())).as("Raft connections between %s and the others", cut.id())
                        .isPositive();
                try {
                    // It decided (the others down) and failed to commit: counted once Ratis stepped it down.
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                            .until(() -> NodeMetrics.value(cut, DEPOSED) > deposedBefore);
                    System.out.printf("%s's decisions deposed %d ms after the cut: %.0f (%s)%n", cut.id(),
                            (System.nanoTime() - start) / 1_000_000, NodeMetrics.value(cut, DEPOSED) - deposedBefore,
                            dir);
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                            .until(() -> NodeMetrics.value(cut, "felix_raft_leader") == 0.0);
                    NodeProcess successor = NodeMetrics.raftLeader(majority);
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                            .until(() -> "down".equals(statuses(observer).get(cut.id())));
                    System.out.printf("%s elected; %s declared down %d ms after the cut%n", successor.id(), cut.id(),
                            (System.nanoTime() - start) / 1_000_000);
                    assertThat(statuses(observer)).as("nodes during the partition, as %s sees them",
                            majority.get(0).id()).allSatisfy((node, status) -> assertThat(status).as(node)
                                    .isEqualTo(node.equals(cut.id()) ? "down" : "up"));
                } finally {
                    c.healRaft();
                }
                awaitAllUp(observer);
                // The healed node has the majority's log: its uncommitted decisions were replaced, not applied.
                try (FelixClient healedClient = c.connect(cut.id())) {
                    awaitAllUp(healedClient);
                }
                Map<String, Double> downAfter = perNode(c.nodes(), DOWN);
                Map<String, Double> upAfter = perNode(c.nodes(), UP);
                System.out.printf("down decisions before %s, after %s; up before %s, after %s%n", downBefore,
                        downAfter, upBefore, upAfter);
                assertThat(downAfter.get(cut.id()) - downBefore.get(cut.id()))
                        .as("status changes to down committed by the cut-off %s", cut.id()).isZero();
                for (NodeProcess n : majority) {
                    assertThat(downAfter.get(n.id()) - downBefore.get(n.id()))
                            .as("status changes to down committed by %s: %s only", n.id(), cut.id())
                            .isLessThanOrEqualTo(1.0);
                }
                assertThat(delta(downAfter, downBefore)).as("status changes to down committed by any node: %s only,"
                        + " once", cut.id()).isEqualTo(1.0);
                // A wrong down committed and then undone would show as a second up.
                assertThat(delta(upAfter, upBefore)).as("status changes to up committed by any node: %s, once",
                        cut.id()).isEqualTo(1.0);
            }
        }
    }

    private static double delta(Map<String, Double> after, Map<String, Double> before) {
        return after.keySet().stream().mapToDouble(k -> after.get(k) - before.get(k)).sum();
    }
}
