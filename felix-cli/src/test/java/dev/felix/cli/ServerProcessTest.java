package dev.felix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.PublishAck;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.testing.BrokerProcess;
import dev.felix.transport.ClientTrust;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code felix server} as a real process: it starts, serves, and drains on SIGTERM. */
@Timeout(90)
class ServerProcessTest {

    @TempDir
    Path dir;

    @Test
    void sigterm_drainsAcceptedPublishesAndExitsCleanly() throws Exception {
        BrokerProcess broker = BrokerProcess.start(dir, dir, "server", List.of());
        Process process = broker.process();
        try {
            Path stdout = broker.stdout();
            int quicPort = broker.quicPort();
            assertThat(http(broker.httpPort(), "/ready")).isEqualTo(200);
            assertThat(Files.exists(dir.resolve("tls/cert.pem"))).isTrue();

            List<CompletableFuture<PublishAck>> acks = new ArrayList<>();
            try (FelixClient client = FelixClient.connect(ClientConfig.builder(
                    ClientTrust.certificates(dir.resolve("tls/cert.pem")))
                    .broker(new InetSocketAddress("127.0.0.1", quicPort)).build())) {
                Publisher publisher = client.publisher(StreamRef.parse("t1/default/drain"));
                assertThat(publisher.publish(new byte[] {0}).firstOffset()).isZero();
                java.util.concurrent.atomic.AtomicInteger ackedBeforeSignal = new java.util.concurrent.atomic.AtomicInteger();
                for (int i = 0; i < 2000; i++) {
                    acks.add(publisher.publishAsync(new byte[64]).whenComplete((a, e) -> {
                        if (e == null) {
                            ackedBeforeSignal.incrementAndGet();
                        }
                    }));
                }
                org.awaitility.Awaitility.await().until(() -> ackedBeforeSignal.get() >= 200);
                process.destroy(); // SIGTERM, with publishes still in flight
                assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("the broker exits after draining").isTrue();
                int acked = 0;
                for (CompletableFuture<PublishAck> ack : acks) {
                    try {
                        ack.get(30, TimeUnit.SECONDS);
                        acked++;
                    } catch (java.util.concurrent.ExecutionException e) {
                        assertThat(e.getCause()).isInstanceOf(FelixClientException.class); // failed cleanly
                    }
                }
                assertThat(acked).as("publishes acknowledged; every other one failed cleanly").isGreaterThanOrEqualTo(200);
            }
            assertThat(Files.readString(stdout)).contains("shutting down (draining)");
            assertThat(Files.readString(broker.stderr())).contains("felix stopped");
        } finally {
            process.destroyForcibly();
        }
    }

    private static int http(int port, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
