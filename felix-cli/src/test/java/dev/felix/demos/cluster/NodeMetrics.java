package dev.felix.demos.cluster;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads one series from a node process's {@code /metrics} (Prometheus text). For tests. */
final class NodeMetrics {

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
}
