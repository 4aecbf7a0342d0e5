package dev.felix.demos.cluster;

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
}
