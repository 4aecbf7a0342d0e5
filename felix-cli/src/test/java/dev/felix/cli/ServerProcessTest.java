package dev.felix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.client.ClientConfig;
import dev.felix.wire.ErrorCode;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.PublishAck;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.transport.ClientTrust;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code felix server} as a real process started by the {@code felix} launcher: it starts, serves,
 * drains on SIGTERM and exits 0; and when it cannot start, it says which setting to change and exits 2.
 */
@Timeout(120)
class ServerProcessTest {

    @TempDir
    Path dir;

    @Test
    void sigterm_drainsAcceptedPublishes_tellsClientsWhy_andExitsZero() throws Exception {
        // No collector of the test's own: the broker runs on what the launcher chooses, as `./felix server` does.
        Launcher felix = new Launcher(dir, Map.of("FELIX_LOG_LEVEL", "info",
                "FELIX_JAVA_OPTS", "-Xmx256m -XX:TieredStopAtLevel=1"));
        Process process = felix.start("server", "--data-dir", dir.resolve("data").toString(),
                "--quic-bind", "127.0.0.1:0", "--http-bind", "127.0.0.1:0");
        try {
            Path stdout = Launcher.out(process);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60))
                    .until(() -> !process.isAlive() || Files.readString(stdout).contains("  mode "));
            String startup = Files.readString(stdout);
            Matcher q = Pattern.compile("(?m)^\\s+quic\\s+127\\.0\\.0\\.1:(\\d+)").matcher(startup);
            Matcher h = Pattern.compile("(?m)^\\s+admin\\s+http://127\\.0\\.0\\.1:(\\d+)").matcher(startup);
            int quicPort = q.find() ? Integer.parseInt(q.group(1)) : -1;
            int httpPort = h.find() ? Integer.parseInt(h.group(1)) : -1;
            assertThat(quicPort).as("startup output: " + startup + Launcher.read(Launcher.err(process))).isPositive();
            assertThat(http(httpPort, "/ready")).isEqualTo(200);
            // Huge heap pages where the launcher runs ZGC (JDK 21+) and this kernel lends them to shared memory.
            boolean huge = JdkChoice.expectedFeature() >= 21 && dev.felix.server.HeapPages.kernelAllowsForSharedMemory();
            assertThat(startup).containsPattern(huge ? "(?m)^  heap   2 MiB transparent huge pages$"
                    : "(?m)^  heap   4 KiB pages \\(.+\\)$");
            Path cert = dir.resolve("data/tls/cert.pem");

            List<CompletableFuture<PublishAck>> acks = new ArrayList<>();
            ClientConfig config = ClientConfig.builder(ClientTrust.certificates(cert))
                    .broker(new InetSocketAddress("127.0.0.1", quicPort)).build();
            try (FelixClient client = FelixClient.connect(config); FelixClient watcher = FelixClient.connect(config)) {
                Publisher publisher = client.publisher(StreamRef.parse("t1/default/drain"));
                assertThat(publisher.publish(new byte[] {0}).firstOffset()).isZero();
                // A subscriber on a connection of its own (see docs/operations.md on a flooding connection).
                Subscription subscription = watcher.subscribe(SubscribeOptions.of(StreamRef.parse("t1/default/drain")));
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
                assertThat(process.exitValue()).as("a clean drain is a clean exit").isZero();
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
                // The subscription ends with the reason the broker gave, not a bare connection_lost.
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(subscription::ended);
                assertThat(subscription.endCause()).isNotNull();
                // On a failure, the broker's own account of its shutdown (which connections it closed, and how).
                assertThat(subscription.endCause().code()).as(() -> subscription.endCause().getMessage()
                        + "\nbroker stdout:\n" + Launcher.read(stdout) + "\nbroker stderr:\n"
                        + Launcher.read(Launcher.err(process))).isEqualTo(ErrorCode.BROKER_SHUTTING_DOWN);
                assertThat(subscription.endCause().getMessage()).contains("is shutting down");
                FelixClientException late = org.assertj.core.api.Assertions.catchThrowableOfType(FelixClientException.class,
                        () -> watcher.publisher(StreamRef.parse("t1/default/drain")));
                assertThat(late.code()).isEqualTo(ErrorCode.BROKER_SHUTTING_DOWN);
            }
            assertThat(Files.readString(stdout)).contains("shutting down (draining)").contains("felix: stopped");
            assertThat(Launcher.read(Launcher.err(process))).contains("felix stopped");
        } finally {
            process.destroyForcibly();
        }
    }

    @Test
    void aPortInUse_isNamedWithItsSetting_andExitsTwo() throws Exception {
        Launcher felix = new Launcher(dir, Map.of());
        try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                ServerSocket tcp = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Launcher.Result quic = felix.run("server", "--data-dir", dir.resolve("d1").toString(),
                    "--quic-bind", "127.0.0.1:" + udp.getLocalPort(), "--http-bind", "127.0.0.1:0");
            assertThat(quic.code()).as(quic.toString()).isEqualTo(2);
            assertThat(quic.err()).contains("could not listen on quic_bind 127.0.0.1:" + udp.getLocalPort()
                    + ": address already in use").contains("--quic-bind").doesNotContain("io.netty")
                    .doesNotContain("Exception");
            Launcher.Result http = felix.run("server", "--data-dir", dir.resolve("d2").toString(),
                    "--quic-bind", "127.0.0.1:0", "--http-bind", "127.0.0.1:" + tcp.getLocalPort());
            assertThat(http.code()).as(http.toString()).isEqualTo(2);
            assertThat(http.err()).contains("could not listen on http_bind 127.0.0.1:" + tcp.getLocalPort()
                    + ": address already in use").doesNotContain("Exception");
        }
    }

    @Test
    void anUnusableDataDirectory_isNamedWithWhatIsWrong_andExitsTwo() throws Exception {
        Launcher felix = new Launcher(dir, Map.of());
        Path file = Files.writeString(dir.resolve("a-file"), "not a directory");
        Launcher.Result isFile = felix.run("server", "--data-dir", file.toString(), "--quic-bind", "127.0.0.1:0",
                "--http-bind", "127.0.0.1:0");
        assertThat(isFile.code()).as(isFile.toString()).isEqualTo(2);
        assertThat(isFile.err()).contains("data_dir " + file).contains("is a file, not a directory")
                .doesNotContain("Exception");

        Launcher.Result underFile = felix.run("server", "--data-dir", file.resolve("data").toString(),
                "--quic-bind", "127.0.0.1:0", "--http-bind", "127.0.0.1:0");
        assertThat(underFile.code()).as(underFile.toString()).isEqualTo(2);
        assertThat(underFile.err()).contains("data_dir " + file.resolve("data")).contains("cannot be created")
                .contains("not a directory").doesNotContain("Exception");

        // Unwritable: /sys refuses new entries even to root (a chmod-ed directory would not stop root).
        Launcher.Result unwritable = felix.run("server", "--data-dir", "/sys/felix-test-data", "--quic-bind",
                "127.0.0.1:0", "--http-bind", "127.0.0.1:0");
        assertThat(unwritable.code()).as(unwritable.toString()).isEqualTo(2);
        assertThat(unwritable.err()).contains("data_dir /sys/felix-test-data").contains("cannot be created")
                .doesNotContain("Exception").doesNotContain("TlsException");
    }

    private static int http(int port, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
