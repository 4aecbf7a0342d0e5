package dev.felix.demos.cluster;

import static dev.felix.demos.cluster.NodeMetrics.DOWN;
import static dev.felix.demos.cluster.NodeMetrics.HEARTBEATS;
import static dev.felix.demos.cluster.NodeMetrics.HEARTBEATS_TIMED_OUT;
import static dev.felix.demos.cluster.NodeMetrics.UP;
import static dev.felix.demos.cluster.NodeMetrics.awaitAllUp;
import static dev.felix.demos.cluster.NodeMetrics.heartbeatReconnectsTo;
import static dev.felix.demos.cluster.NodeMetrics.perNode;
import static dev.felix.demos.cluster.NodeMetrics.statuses;
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
 * Three real {@code felix server} processes, each advertising a {@link TcpProxy} in front of its Raft endpoint
 * ({@code raft_advertise}). Every connection open to the Raft leader's endpoint is then stalled: no byte passes
 * either way, and none is closed or reset, as when a NAT or firewall forgets a connection. The leader's own appends
 * to the followers go out over their endpoints and keep flowing, so it stays leader.
 *
 * <p>A follower's heartbeat on a stalled connection times out, and Ratis makes no reconnect after a timeout that is
 * not retried ({@code HeartbeatRetry}). The node reconnects on its own because its Raft server keeps hearing that
 * leader's appends after the heartbeat was sent ({@code HeartbeatSender.reconnectIfBroken}; counted in {@code
 * felix_raft_client_reconnects_total{client="heartbeats"}}), and sends the next
 * heartbeat at once; without that, its heartbeats would keep going into the stalled connection (no follower
 * reconnected within 30 s). The lost heartbeat, the reconnect and the next heartbeat take about as long as the 2 s
 * failure timeout, so the leader gives a node whose Raft server answers it twice that ({@code FailoverDecider}):
 * before, a follower was declared down and up again in 1 of 2 runs. The leader records its own heartbeat without a
 * connection: sent to itself through its own proxy (its clients dialled the advertised address then; they dial the
 * bound one now, {@code NoHairpinTest}), it stalled too, and nothing reconnected it (the leader follows no one), so
 * the leader declared itself down (1 of 1 runs).
 */
@Timeout(180)
class StalledRaftConnectionTest {


    /**
     * Heartbeats the leader must receive after the followers reconnected: three nodes, two a second each, so about
     * 4 s, twice the 2 s failure timeout, in which a node declared down would be declared up again and show in the
     * counters.
     */
    private static final int WINDOW_HEARTBEATS = 24;

    /** Kept when the test fails: the nodes' logs are under {@code logs/}. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @Test
    void heartbeatConnectionsToTheLeaderThatStopAnswering_areReconnected_andNoNodeIsDeclaredDown() throws Exception {
        try (LocalCluster c = LocalCluster.startBehindProxies(dir, 3, List.of())) {
            NodeProcess leader = NodeMetrics.raftLeader(c.nodes());
            List<NodeProcess> followers = c.nodes().stream().filter(n -> n != leader).toList();
            try (FelixClient observer = c.connect(followers.get(0).id())) {
                awaitAllUp(observer);
                double downBefore = NodeMetrics.value(leader, DOWN);
                double upBefore = NodeMetrics.value(leader, UP);
                Map<String, Double> timedOutBefore = perNode(c.nodes(), HEARTBEATS_TIMED_OUT);
                Map<String, Double> reconnectsBefore = perNode(followers, heartbeatReconnectsTo(leader));
                TcpProxy proxy = c.raftProxy(leader.id());
                int acceptedBefore = proxy.accepted();
                double deferralsBefore = NodeMetrics.value(leader, "felix_raft_node_down_deferrals_total");

                long start = System.nanoTime();
                int stalled = proxy.stallOpenConnections();
                assertThat(stalled).as("connections open to the leader %s's Raft endpoint", leader.id()).isPositive();

                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() ->
                        followers.stream().allMatch(n -> perNode(List.of(n), heartbeatReconnectsTo(leader)).get(n.id())
                                > reconnectsBefore.get(n.id())));
                double heartbeats = NodeMetrics.value(leader, HEARTBEATS);
                System.out.printf("%d connections to %s stalled; every follower reconnected after %d ms (%s)%n",
                        stalled, leader.id(), (System.nanoTime() - start) / 1_000_000, dir);
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                        .until(() -> NodeMetrics.value(leader, HEARTBEATS) >= heartbeats + WINDOW_HEARTBEATS);
                System.out.printf("window closed %d ms after the stall; nodes: %s; %d connections accepted since;"
                        + " followers the leader left up for their Raft answers: %.0f%n",
                        (System.nanoTime() - start) / 1_000_000, statuses(observer),
                        proxy.accepted() - acceptedBefore,
                        NodeMetrics.value(leader, "felix_raft_node_down_deferrals_total") - deferralsBefore);

                assertThat(NodeMetrics.raftLeader(c.nodes())).as("the Raft leader (its appends were not stalled)")
                        .isSameAs(leader);
                assertThat(NodeMetrics.value(leader, DOWN) - downBefore)
                        .as("status changes to down committed by %s: every node was alive", leader.id()).isZero();
                assertThat(NodeMetrics.value(leader, UP) - upBefore)
                        .as("status changes to up committed by %s", leader.id()).isZero();
                assertThat(statuses(observer)).containsOnlyKeys("n1", "n2", "n3")
                        .allSatisfy((node, status) -> assertThat(status).as(node).isEqualTo("up"));
                for (NodeProcess n : followers) {
                    double timedOut = NodeMetrics.value(n, HEARTBEATS_TIMED_OUT) - timedOutBefore.get(n.id());
                    System.out.printf("follower %s: %.0f heartbeats timed out, %.0f reconnects to %s%n", n.id(),
                            timedOut, perNode(List.of(n), heartbeatReconnectsTo(leader)).get(n.id())
                                    - reconnectsBefore.get(n.id()), leader.id());
                    assertThat(timedOut).as("follower %s: heartbeats lost in a stalled connection", n.id())
                            .isPositive();
                }
                assertThat(NodeMetrics.value(leader, HEARTBEATS_TIMED_OUT) - timedOutBefore.get(leader.id()))
                        .as("heartbeats of the leader %s that timed out (it records its own without a connection)",
                                leader.id())
                        .isZero();
                assertThat(proxy.accepted()).as("connections to %s's Raft endpoint since the stall: the reconnects",
                        leader.id()).isGreaterThan(acceptedBefore);

                // A metadata write through a follower: its write client's connection to the leader was stalled too,
                // and a write's timed-out attempt is retried, with a reconnect, as before.
                observer.streams().create(StreamRef.parse("t1/default/after-the-stall"), StreamSpec.ephemeral(1));
            }
        }
    }
}
