package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.server.TestBroker;
import dev.felix.transport.ClientTrust;
import dev.felix.transport.TlsMaterial;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SharedSockets}: the clients of one {@link ClientResources} share a UDP socket per event loop for one broker
 * endpoint, each keeping a QUIC connection of its own, and a socket closes with its last client.
 */
@Timeout(120)
class SharedSocketsTest {

    @TempDir
    Path dir;

    private static final StreamRef S = StreamRef.parse("t1/default/shared-sockets");

    @Test
    void clientsOfOneBroker_shareASocketPerEventLoop_eachWithItsOwnConnection() throws Exception {
        int clients = 6;
        try (TestBroker broker = TestBroker.start(dir); FelixClient pub = broker.connect();
                ClientResources shared = ClientResources.create(2, 1)) {
            long before = openConnections(broker);
            List<FelixClient> subscribers = new ArrayList<>();
            AtomicLongArray next = new AtomicLongArray(clients);
            for (int i = 0; i < clients; i++) {
                // Each client builds its own configuration and trust object; equal values share a socket.
                FelixClient c = broker.connect(b -> b.resources(shared));
                subscribers.add(c);
                int sub = i;
                c.subscribe(SubscribeOptions.of(S), e -> next.compareAndSet(sub, e.offset(), e.offset() + 1));
            }
            assertThat(shared.sockets().open()).as("one socket per event loop").isEqualTo(2);
            await().atMost(Duration.ofSeconds(10)).until(() -> openConnections(broker) == before + clients);
            try (Publisher p = pub.publisher(S)) {
                publish(p, 0, 20);
                await().atMost(Duration.ofSeconds(30)).until(() -> reached(next, 0, 1, clients, 20));

                // Clients take the sockets in turn: 0, 2 and 4 share one. Closing them closes their connections at
                // once (each CONNECTION_CLOSE leaves though the socket stays open until the last), then the socket.
                for (int i = 0; i < clients; i += 2) {
                    subscribers.get(i).close();
                    if (i < clients - 2) {
                        assertThat(shared.sockets().open()).as("still used by another client").isEqualTo(2);
                    }
                }
                assertThat(shared.sockets().open()).as("closed with its last client").isEqualTo(1);
                // Far sooner than the 60 s idle timeout that a lost CONNECTION_CLOSE would leave them to.
                await().atMost(Duration.ofSeconds(10)).until(() -> openConnections(broker) == before + clients / 2);

                publish(p, 20, 40);
                await().atMost(Duration.ofSeconds(30)).until(() -> reached(next, 1, 2, clients, 40));
            }
            for (int i = 0; i < clients; i += 2) {
                assertThat(next.get(i)).as("closed client %d got nothing more", i).isEqualTo(20);
            }
            subscribers.forEach(FelixClient::close);
            assertThat(shared.sockets().open()).isZero();
            await().atMost(Duration.ofSeconds(10)).until(() -> openConnections(broker) == before);
        }
    }

    @Test
    void clientsThatTrustDifferently_neverShareASocket() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); ClientResources shared = ClientResources.create(1, 1)) {
            String fingerprint = TlsMaterial.fingerprint(broker.server().tls().chain().get(0));
            try (FelixClient anchors = broker.connect(b -> b.resources(shared));
                    FelixClient pinned = FelixClient.connect(ClientConfig.builder(ClientTrust.pinnedFingerprint(
                            fingerprint)).broker(broker.server().quicAddress()).tenant("t1").resources(shared).build());
                    FelixClient anchorsAgain = broker.connect(b -> b.resources(shared))) {
                assertThat(shared.sockets().open()).as("one socket per trust, one event loop").isEqualTo(2);
                for (FelixClient c : List.of(anchors, pinned, anchorsAgain)) {
                    assertThat(c.connected()).isTrue();
                }
            }
            assertThat(shared.sockets().open()).isZero();
        }
    }

    private static void publish(Publisher p, int from, int to) {
        for (int i = from; i < to; i++) {
            p.publish(ByteBuffer.allocate(8).putLong(i).array());
        }
    }

    /** Whether every {@code step}-th subscriber from {@code from} has read up to {@code value}. */
    private static boolean reached(AtomicLongArray next, int from, int step, int to, long value) {
        for (int i = from; i < to; i += step) {
            if (next.get(i) != value) {
                return false;
            }
        }
        return true;
    }

    private static long openConnections(TestBroker broker) throws Exception {
        for (String line : broker.scrapeMetrics().split("\n")) {
            if (line.startsWith("felix_connections ")) {
                return (long) Double.parseDouble(line.substring(line.indexOf(' ') + 1).trim());
            }
        }
        throw new AssertionError("no felix_connections gauge in the metrics");
    }
}
