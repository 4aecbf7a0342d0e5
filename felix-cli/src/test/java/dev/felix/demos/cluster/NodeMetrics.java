package dev.felix.demos.cluster;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads one series from a node process's {@code /metrics} (Prometheus text). For tests. */
final class NodeMetrics {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private NodeMetrics() {
    }

    /**
     * The value of {@code series} (its name with labels, exactly as printed), 0 when the node does not print it.
     * Fails when the node does not answer within 5 s (a frozen node never does).
     */
    static double value(NodeProcess node, String series) {
        String text;
        try {
            text = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpAddress().getPort()
                    + "/metrics")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
            throw new AssertionError("cannot scrape node " + node.id() + ": " + e, e);
        }
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }
}
