package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.CacheMirror;
import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.FelixClient;
import dev.felix.server.metrics.Closes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SDK keeps an idle connection alive with QUIC DATAGRAM frames (issue 12 item 5): an idle mirror stays
 * connected to a broker whose idle timeout is far shorter than the test, and its keep-alives open no streams
 * (the stream keep-alive cost the broker a stream, an auth and about ten packets per client per interval).
 */
@Timeout(60)
class KeepAliveTest {

    private static final CacheRef CONFIG = CacheRef.parse("t1/default/config");

    @TempDir
    Path dir;

    @Test
    void anIdleMirror_staysConnectedThroughDatagramKeepAlives_thatOpenNoStream() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("idle_timeout_ms", "1500"));
                FelixClient client = broker.connect(b -> b.keepAlive(Duration.ofMillis(300)))) {
            client.caches().create(CONFIG, CacheSpec.memory());
            CacheMirror mirror = client.mirror(CONFIG, null);
            // The create's stream has ended (counted) once this count stops moving; then nothing else ends.
            await().atMost(Duration.ofSeconds(10)).until(() -> streamsEnded(broker) >= 1);
            long ended = streamsEnded(broker);
            // Five idle timeouts of silence but for keep-alives (about 25 of them).
            await().during(Duration.ofMillis(7_500)).atMost(Duration.ofSeconds(12))
                    .until(() -> client.connected() && mirror.endCause() == null);
            assertThat(broker.server().metrics().closes.connectionCount(Closes.By.TRANSPORT, Closes.Reason.IDLE_TIMEOUT))
                    .as("idle timeouts").isZero();
            assertThat(streamsEnded(broker)).as("streams the keep-alives opened").isEqualTo(ended);
        }
    }

    /** Client-opened streams the broker has seen end, by any party for any reason. */
    private static long streamsEnded(TestBroker broker) {
        long n = 0;
        for (Closes.By by : Closes.By.values()) {
            for (Closes.Reason reason : Closes.Reason.values()) {
                n += broker.server().metrics().closes.streamCount(by, reason);
            }
        }
        return n;
    }
}
