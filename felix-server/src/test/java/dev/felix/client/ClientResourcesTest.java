package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
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
 * {@link ClientResources}: many clients of one process on one set of event loops and handler threads, each client
 * complete on its own, and closing one leaves the shared threads serving the others. The clients of one broker
 * endpoint share a UDP socket per event loop ({@link SharedSockets}), each keeping a QUIC connection of its own,
 * and a socket closes with its last client.
 */
@Timeout(120)
class ClientResourcesTest {

    @TempDir
    Path dir;

    private static final StreamRef S = StreamRef.parse("t1/default/shared");

    @Test
    void clientsSharingResources_runOnTheSharedThreadsOnly_andOutliveEachOther() throws Exception {
        int clients = 8;
        long before = ownThreads();
        try (TestBroker broker = TestBroker.start(dir); FelixClient pub = broker.connect();
                ClientResources shared = ClientResources.create(1, 1)) {
            AtomicLongArray next = new AtomicLongArray(clients);
            List<FelixClient> subscribers = subscribers(broker, shared, next);
            try (Publisher p = pub.publisher(S)) {
                publish(p, 0, 50);
                await().atMost(Duration.ofSeconds(30)).until(() -> reached(next, 0, 1, clients, 50));
                // Every handler has run by now (the pool starts its thread on the first one).
                assertThat(threads("felix-client-io")).as("one shared event loop").isEqualTo(1);
                assertThat(threads("felix-handler-shared")).as("one shared handler thread").isEqualTo(1);
                // The publisher's own client has its event loop; none of the eight added one, nor handler threads.
                assertThat(ownThreads()).isLessThanOrEqualTo(before + 1);
                subscribers.get(0).close(); // the others keep the shared threads
                publish(p, 50, 100);
                await().atMost(Duration.ofSeconds(30)).until(() -> reached(next, 1, 1, clients, 100));
            }
            assertThat(next.get(0)).as("the closed client got nothing more").isEqualTo(50);
            subscribers.forEach(FelixClient::close);
        }
    }

    @Test
    void clientsOfOneBroker_shareASocketPerEventLoop_eachWithItsOwnConnection() throws Exception {
        int clients = 6;
        try (TestBroker broker = TestBroker.start(dir); FelixClient pub = broker.connect();
                ClientResources shared = ClientResources.create(2, 1)) {
            long before = openConnections(broker);
            AtomicLongArray next = new AtomicLongArray(clients);
            List<FelixClient> subscribers = subscribers(broker, shared, next);
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
    void aSocketCarriesAtMostItsCapOfConnections() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); ClientResources shared = ClientResources.create(1, 1)) {
            List<FelixClient> clients = new ArrayList<>();
            for (int i = 0; i < SharedSockets.DEFAULT_CONNECTIONS_PER_SOCKET; i++) {
                clients.add(broker.connect(b -> b.resources(shared)));
            }
            assertThat(shared.sockets().open()).as("one full socket").isEqualTo(1);
            clients.add(broker.connect(b -> b.resources(shared)));
            assertThat(shared.sockets().open()).as("a client more opens another").isEqualTo(2);
            for (FelixClient c : clients) {
                assertThat(c.connected()).isTrue();
            }
            clients.forEach(FelixClient::close);
            assertThat(shared.sockets().open()).isZero();
        }
    }

    @Test
    void oneConnectionPerSocket_givesEveryClientItsOwnSocket() throws Exception {
        assertThatThrownBy(() -> ClientResources.create(1, 1, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connectionsPerSocket");
        try (TestBroker broker = TestBroker.start(dir); ClientResources own = ClientResources.create(1, 1, 1)) {
            List<FelixClient> clients = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                clients.add(broker.connect(b -> b.resources(own)));
            }
            assertThat(own.sockets().open()).as("a socket per client").isEqualTo(3);
            clients.get(0).close();
            assertThat(own.sockets().open()).as("closed with its only client").isEqualTo(2);
            clients.forEach(FelixClient::close);
            assertThat(own.sockets().open()).isZero();
        }
    }

    @Test
    void aClientsMetricsShowItsSocketsKernelCounters() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); ClientResources shared = ClientResources.create(1, 1);
                FelixClient alone = broker.connect(); FelixClient sharing = broker.connect(b -> b.resources(shared))) {
            for (FelixClient c : List.of(alone, sharing)) {
                java.util.Map<String, Long> m = c.metrics().snapshot();
                assertThat(m).as("read from /proc (the suite runs on Linux with epoll)")
                        .containsEntry("felix_client_udp_receive_drops_total", 0L)
                        .containsKey("felix_client_udp_receive_queue_bytes");
                assertThat(m.get("felix_client_udp_receive_queue_bytes")).isNotNegative();
            }
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

    /**
     * One client per slot of {@code next} on {@code shared}, each subscribed to {@link #S} and counting its events in
     * its slot. Each client builds its own configuration and trust object (equal values, so they share sockets).
     */
    private static List<FelixClient> subscribers(TestBroker broker, ClientResources shared, AtomicLongArray next) {
        List<FelixClient> subscribers = new ArrayList<>();
        for (int i = 0; i < next.length(); i++) {
            FelixClient c = broker.connect(b -> b.resources(shared));
            subscribers.add(c);
            int sub = i;
            c.subscribe(SubscribeOptions.of(S), e -> next.compareAndSet(sub, e.offset(), e.offset() + 1));
        }
        return subscribers;
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

    /** Threads a client owns when it shares nothing: its event loop and its handler pool. */
    private static long ownThreads() {
        return threads("felix-quic-client") + threads("felix-handler-") - threads("felix-handler-shared");
    }

    private static long threads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().startsWith(prefix))
                .count();
    }
}
