package dev.felix.demos.cluster;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads series from a node process's {@code /metrics} (Prometheus text), and node statuses from the cluster. For
 * tests.
 */
final class NodeMetrics {

    /** Status changes to down committed by a node as Raft leader. */
    static final String DOWN = "felix_raft_node_status_changes_total{status=\"down\"}";
    /** Status changes to up committed by a node as Raft leader. */
    static final String UP = "felix_raft_node_status_changes_total{status=\"up\"}";
    /** Failover decisions a node made as Raft leader that failed because it no longer led. */
    static final String DEPOSED = "felix_raft_decisions_deposed_total";
    /** Heartbeats a node received as Raft leader since it started. */
    static final String HEARTBEATS = "felix_raft_heartbeats_received_total";
    /** Heartbeats a node gave up on a timeout. */
    static final String HEARTBEATS_TIMED_OUT = "felix_raft_heartbeats_timed_out_total";

    private NodeMetrics() {
    }

    /**
     * The value of {@code series} (its name with labels, exactly as printed), 0 when the node does not print it.
     * Fails when the node does not answer within 5 s (a frozen node never does).
     */
    static double value(NodeProcess node, String series) {
        String text;
        try {
            text = node.metricsText();
        } catch (Exception e) {
            throw new AssertionError("cannot scrape node " + node.id() + ": " + e, e);
        }
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /**
     * The node of {@code candidates} that says it leads the metadata group ({@code felix_raft_leader}), once exactly
     * one does (a leader deposed while frozen may say so until it hears of its successor); within 30 s.
     */
    static NodeProcess raftLeader(List<NodeProcess> candidates) {
        List<NodeProcess> leading = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> candidates.stream().filter(n -> value(n, "felix_raft_leader") == 1.0).toList(),
                        l -> l.size() == 1);
        return leading.get(0);
    }

    /** The series of reconnects of a node's Raft clients (either) to {@code peer}, on either thread. */
    static String[] reconnectsTo(NodeProcess peer) {
        return java.util.stream.Stream.of("writes", "heartbeats")
                .flatMap(client -> Arrays.stream(reconnectsTo(peer, client))).toArray(String[]::new);
    }

    /** The series of reconnects of a node's heartbeat client to {@code peer}, on either thread. */
    static String[] heartbeatReconnectsTo(NodeProcess peer) {
        return reconnectsTo(peer, "heartbeats");
    }

    private static String[] reconnectsTo(NodeProcess peer, String client) {
        return new String[] {
            "felix_raft_client_reconnects_total{client=\"" + client + "\",peer=\"" + peer.id()
                    + "\",thread=\"pool\"}",
            "felix_raft_client_reconnects_total{client=\"" + client + "\",peer=\"" + peer.id()
                    + "\",thread=\"caller\"}"};
    }

    /** Per node, the sum of {@code series}. */
    static Map<String, Double> perNode(List<NodeProcess> nodes, String... series) {
        return nodes.stream().collect(Collectors.toMap(NodeProcess::id,
                n -> Arrays.stream(series).mapToDouble(s -> value(n, s)).sum()));
    }

    /** The sum of {@code series} over {@code nodes}. */
    static double sum(List<NodeProcess> nodes, String series) {
        return nodes.stream().mapToDouble(n -> value(n, series)).sum();
    }

    /** Waits up to 30 s until every node is up as the node {@code client} is connected to answers. */
    static void awaitAllUp(dev.felix.client.FelixClient client) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                .until(() -> statuses(client).values().stream().allMatch("up"::equals));
    }

    /** Each node's status ({@code up}, {@code down}) as the node {@code client} is connected to answers. */
    static Map<String, String> statuses(dev.felix.client.FelixClient client) {
        return client.cluster().status().nodes().stream()
                .collect(Collectors.toMap(dev.felix.wire.ClusterNodeStatus::node,
                        dev.felix.wire.ClusterNodeStatus::status));
    }
}
