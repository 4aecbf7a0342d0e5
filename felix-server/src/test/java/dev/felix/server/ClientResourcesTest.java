package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.ClientResources;
import dev.felix.client.FelixClient;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.SubscribeOptions;
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
 * complete on its own, and closing one leaves the shared threads serving the others.
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
            List<FelixClient> subscribers = new ArrayList<>();
            AtomicLongArray next = new AtomicLongArray(clients);
            for (int i = 0; i < clients; i++) {
                FelixClient c = broker.connect(b -> b.resources(shared));
                subscribers.add(c);
                int sub = i;
                c.subscribe(SubscribeOptions.of(S), e -> next.compareAndSet(sub, e.offset(), e.offset() + 1));
            }
            try (Publisher p = pub.publisher(S)) {
                publish(p, 0, 50);
                await().atMost(Duration.ofSeconds(30)).until(() -> all(next, 0, clients, 50));
                // Every handler has run by now (the pool starts its thread on the first one).
                assertThat(threads("felix-client-io")).as("one shared event loop").isEqualTo(1);
                assertThat(threads("felix-handler-shared")).as("one shared handler thread").isEqualTo(1);
                // The publisher's own client has its event loop; none of the eight added one, nor handler threads.
                assertThat(ownThreads()).isLessThanOrEqualTo(before + 1);
                subscribers.get(0).close(); // the others keep the shared threads
                publish(p, 50, 100);
                await().atMost(Duration.ofSeconds(30)).until(() -> all(next, 1, clients, 100));
            }
            assertThat(next.get(0)).as("the closed client got nothing more").isEqualTo(50);
            subscribers.forEach(FelixClient::close);
        }
    }

    private static void publish(Publisher p, int from, int to) {
        for (int i = from; i < to; i++) {
            p.publish(ByteBuffer.allocate(8).putLong(i).array());
        }
    }

    private static boolean all(AtomicLongArray next, int from, int to, long value) {
        for (int i = from; i < to; i++) {
            if (next.get(i) != value) {
                return false;
            }
        }
        return true;
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
