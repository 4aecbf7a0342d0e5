package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.felix.client.Cache;
import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who closed it: the SDK says whether a stream ended because this client closed it, the broker did, or the
 * transport lost the connection; the broker counts every connection and client-opened stream close by who and
 * why ({@code felix_connection_closes_total{by,reason}}, {@code felix_stream_closes_total{by,reason}}).
 */
@Timeout(60)
class WhoClosedItTest {

    @TempDir
    Path dir;

    private static final CacheRef CACHE = CacheRef.parse("t1/default/who");

    @Test
    void aCacheTheClientClosed_saysTheClientClosedIt_andTheBrokerCountsAClientClose() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            c.caches().create(CACHE, CacheSpec.memory());
            double before = counter(broker, "felix_stream_closes_total", "client", "normal");
            Cache cache = c.cache(CACHE);
            cache.put("k", new byte[] {1}, null);
            cache.close();
            assertThatThrownBy(() -> cache.get("k")).isInstanceOfSatisfying(FelixClientException.class,
                    e -> assertThat(e.getMessage()).endsWith(": the cache stream was closed by this client"));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> counter(broker, "felix_stream_closes_total", "client", "normal") > before);
        }
    }

    @Test
    void anIdleTimeout_isTheTransportsDoing_onBothSides() throws Exception {
        // The broker's 1 s idle timeout is the connection's (QUIC takes the smaller of the two); the client's
        // keep-alive is set far beyond it, so nothing keeps the connection alive.
        try (TestBroker broker = TestBroker.start(dir, Map.of("idle_timeout_ms", "1000"));
                FelixClient c = broker.connect(b -> b.keepAlive(Duration.ofSeconds(60)))) {
            c.caches().create(CACHE, CacheSpec.memory());
            Cache cache = c.cache(CACHE);
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> counter(broker, "felix_connection_closes_total", "transport", "idle_timeout") == 1);
            await().atMost(Duration.ofSeconds(15)).until(() -> !c.connected());
            assertThatThrownBy(() -> cache.get("k")).isInstanceOfSatisfying(FelixClientException.class,
                    e -> assertThat(e.getMessage()).contains("was lost")
                            .contains("transport: no packet from the broker within the idle timeout"));
            assertThat(counter(broker, "felix_connection_closes_total", "client", "normal")).isZero();
        }
    }

    @Test
    void aDrainingBroker_countsItsOwnCloses() throws Exception {
        TestBroker broker = TestBroker.start(dir);
        FelixClient c = broker.connect();
        try {
            c.caches().create(CACHE, CacheSpec.memory());
            var metrics = broker.server().metrics();
            broker.close();
            assertThat(count(metrics, "connection", "broker", "shutting_down")).isEqualTo(1);
        } finally {
            c.close();
        }
    }

    private static long count(dev.felix.server.metrics.BrokerMetrics m, String what, String by, String reason) {
        var b = dev.felix.server.metrics.Closes.By.valueOf(by.toUpperCase(java.util.Locale.ROOT));
        var r = dev.felix.server.metrics.Closes.Reason.valueOf(reason.toUpperCase(java.util.Locale.ROOT));
        return what.equals("connection") ? m.closes.connectionCount(b, r) : m.closes.streamCount(b, r);
    }

    static double counter(TestBroker broker, String name, String by, String reason) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{by=\"" + by + "\",reason=\"" + reason
                + "\"} (\\S+)$").matcher(broker.server().metrics().scrape());
        if (!m.find()) {
            throw new AssertionError("no " + name + " for " + by + "/" + reason);
        }
        return Double.parseDouble(m.group(1));
    }
}
