package dev.felix.server.hostile;

import static org.awaitility.Awaitility.await;

import dev.felix.server.TestBroker;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the broker's own gauges from its Prometheus exposition (what {@code /metrics} serves). */
final class BrokerGauges {
    private BrokerGauges() {
    }

    static double connections(TestBroker broker) {
        return gauge(broker, "felix_connections");
    }

    static double subscriptions(TestBroker broker) {
        return gauge(broker, "felix_subscriptions");
    }

    static void awaitConnections(TestBroker broker, double expected) {
        await().atMost(Duration.ofSeconds(10)).until(() -> connections(broker) == expected);
    }

    static void awaitSubscriptions(TestBroker broker, double expected) {
        await().atMost(Duration.ofSeconds(10)).until(() -> subscriptions(broker) == expected);
    }

    /** The value of an untagged gauge {@code name}. */
    static double gauge(TestBroker broker, String name) {
        String text = broker.server().metrics().scrape();
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + " (\\S+)$").matcher(text);
        if (!m.find()) {
            throw new AssertionError("no gauge " + name + " in the broker's metrics");
        }
        return Double.parseDouble(m.group(1));
    }
}
