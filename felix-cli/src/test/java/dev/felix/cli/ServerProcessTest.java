package dev.felix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.PublishAck;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
        String javaBin = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder builder = new ProcessBuilder(javaBin, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                FelixCommand.class.getName(), "server", "--data-dir", dir.toString(),
                "--quic-bind", "127.0.0.1:0", "--http-bind", "127.0.0.1:0");
        builder.environment().put("FELIX_LOG_LEVEL", "info");
        Process process = builder
                .redirectError(dir.resolve("stderr.txt").toFile())
                .redirectOutput(dir.resolve("stdout.txt").toFile()) // destroy() closes pipes; files survive
                .start();
        try {
            Path stdout = dir.resolve("stdout.txt");
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                    .until(() -> Files.readString(stdout).contains("  mode "));
            String startup = Files.readString(stdout);
            Matcher q = Pattern.compile("(?m)^\\s+quic\\s+127\\.0\\.0\\.1:(\\d+)").matcher(startup);
            Matcher h = Pattern.compile("(?m)^\\s+admin\\s+http://127\\.0\\.0\\.1:(\\d+)").matcher(startup);
            int quicPort = q.find() ? Integer.parseInt(q.group(1)) : -1;
            int httpPort = h.find() ? Integer.parseInt(h.group(1)) : -1;
            assertThat(quicPort).as("startup output: " + startup).isPositive();
            assertThat(http(httpPort, "/ready")).isEqualTo(200);
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
            assertThat(Files.readString(dir.resolve("stderr.txt"))).contains("felix stopped");
        } finally {
            process.destroyForcibly();
        }
    }

    private static int http(int port, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
