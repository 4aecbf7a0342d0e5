package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.FelixClient;
import dev.felix.client.StreamRef;
import dev.felix.client.SubscribeOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that close cleanly leave the broker's gauges at once: {@code FelixClient.close()} sends an application
 * CONNECTION_CLOSE and waits for it to leave, and the broker forgets the connection (and its subscriptions) as
 * soon as that close arrives, instead of when its idle timeout fires.
 */
@Timeout(120)
class CleanCloseGaugesTest {

    @TempDir
    Path dir;

    private static final int CLIENTS = 50;

    @Test
    void fiftyClientsCloseCleanly_andTheConnectionAndSubscriptionGaugesReachZeroWithinSeconds() throws Exception {
        // The broker's idle timeout is far longer than the wait below: only the close itself can empty the gauges.
        try (TestBroker broker = TestBroker.start(dir, java.util.Map.of("idle_timeout_ms", "60000"))) {
            List<FelixClient> clients = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                FelixClient c = broker.connect();
                c.subscribe(SubscribeOptions.of(StreamRef.parse("t1/default/close-" + (i % 5))));
                clients.add(c);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> gauge(broker, "felix_connections") == CLIENTS
                    && gauge(broker, "felix_subscriptions") == CLIENTS);
            long t0 = System.nanoTime();
            clients.parallelStream().forEach(FelixClient::close);
            await().atMost(Duration.ofSeconds(5)).until(() -> gauge(broker, "felix_connections") == 0
                    && gauge(broker, "felix_subscriptions") == 0);
            System.out.printf("gauges at 0 %d ms after %d clients began closing%n",
                    (System.nanoTime() - t0) / 1_000_000, CLIENTS);
            String metrics = broker.server().metrics().scrape();
            assertThat(metrics).contains("felix_connection_closes_total{by=\"client\",reason=\"normal\"} " + CLIENTS);
        }
    }

    static double gauge(TestBroker broker, String name) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + " (\\S+)$").matcher(broker.server().metrics().scrape());
        if (!m.find()) {
            throw new AssertionError("no gauge " + name);
        }
        return Double.parseDouble(m.group(1));
    }
}
