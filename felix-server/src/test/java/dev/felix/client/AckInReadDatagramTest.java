package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.server.TestBroker;
import io.netty.handler.codec.quic.QuicConnectionStats;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker answers a publish in the datagram that acknowledges its read: a shard writer runs inline in the read
 * (small fanouts), its subscribers' deliveries are written as the read completes, and then the publisher's ack, which
 * leaves with the transport's acknowledgement of the packet instead of in a datagram of its own after it. A
 * closed-loop publisher (one publish in flight) therefore receives about one packet per publish, where it received
 * two: a transport ACK, then the answer.
 */
@Timeout(120)
class AckInReadDatagramTest {

    private static final StreamRef S = StreamRef.parse("t1/default/ack-in-read");
    private static final int PUBLISHES = 300;

    @TempDir
    Path dir;

    @Test
    void aClosedLoopPublisher_receivesAboutOnePacketPerPublish_andTheSubscriberEveryEventInOrder() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient pubClient = broker.connect();
                FelixClient subClient = broker.connect()) {
            List<Long> offsets = new ArrayList<>(); // written by the handler, read by the test: guarded by itself
            Subscription s = subClient.subscribe(SubscribeOptions.of(S), (NonBlockingHandler) event -> {
                synchronized (offsets) {
                    offsets.add(event.offset());
                }
            });
            Publisher p = pubClient.publisher(S);
            assertThat(p.publish(new byte[] {0}).firstOffset()).isZero(); // the stream exists, the path is warm
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                synchronized (offsets) {
                    return offsets.size() == 1;
                }
            });
            QuicConnectionStats before = p.frames().channel().parent().collectStats().get(10, TimeUnit.SECONDS);
            for (int i = 1; i <= PUBLISHES; i++) {
                assertThat(p.publish(new byte[] {(byte) i}).firstOffset()).isEqualTo(i);
            }
            QuicConnectionStats after = p.frames().channel().parent().collectStats().get(10, TimeUnit.SECONDS);
            long received = after.recv() - before.recv();
            // One packet per answer, plus a few the transport sends on its own (ACK-only packets for a late read,
            // path probes); two per publish when the answer follows the read in a packet of its own.
            assertThat(received).as("packets the publisher received for %d closed-loop publishes", PUBLISHES)
                    .isLessThan(PUBLISHES * 13L / 10);
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                synchronized (offsets) {
                    return offsets.size() == PUBLISHES + 1;
                }
            });
            synchronized (offsets) {
                for (int i = 0; i <= PUBLISHES; i++) {
                    assertThat(offsets.get(i)).isEqualTo(i);
                }
            }
            s.close();
        }
    }
}
