package dev.felix.demos.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.FelixClient;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.server.FelixServer;
import dev.felix.server.cluster.TestCluster;
import dev.felix.wire.ErrorCode;
import dev.felix.wire.StartPosition;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plain subscriber (no gap notices) that a relay closes with {@code resync} must be told exactly where its stream
 * stopped: the error's offset is the first offset it has not received, so that subscribing again from it loses
 * nothing. Found by {@code felix demo cluster-relay-load}: the offset named used to be the relay's position for the
 * subscription, which counts the batches already handed to the node's local queue for it ({@code RelayedFeed});
 * when the subscription ends those are not written (the writer drains only while the stream is writable, and a
 * stalled subscriber's is not), so a client resuming at the named offset missed them without a notice. Now the
 * queue drops them and the offset names the first of them.
 */
@Timeout(120)
class RelayResyncOffsetTest {

    private static final StreamRef TICKS = StreamRef.parse("t1/default/ticks");

    @TempDir
    Path dir;

    private TestCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aPlainSubscriberClosedWithResync_isToldTheFirstOffsetItHasNotReceived() throws Exception {
        cluster = TestCluster.startThree(dir, Map.of("cluster_relay_subscribe", "true",
                "cluster_relay_deadline_ms", "300", "subscriber_queue_events", "256"));
        FelixClient admin = cluster.connect(cluster.node("n1"));
        String leaderId = admin.streams().create(TICKS, new StreamSpec(1, false, null, null, null))
                .shardInfo().get(0).leader();
        FelixServer leader = cluster.node(leaderId);
        FelixServer relay = cluster.nodes().values().stream().filter(n -> n != leader).findFirst().orElseThrow();
        Publisher publisher = cluster.connect(leader).publisher(TICKS);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> publisher.publish(bytes("warm-up")).firstOffset() >= 0);

        try (PlainSubscriber plain = PlainSubscriber.open(relay.quicAddress(), cluster.ca().cert(), "t1", "default",
                "ticks", new StartPosition.Latest(), Duration.ofSeconds(10))) {
            // It does not read: its buffers, the QUIC window and the node's queue for it fill, the relay's write to it
            // stalls past the deadline, and the paced closer ends it with resync.
            // Published until that happened (how much fits in the buffers on the way depends on the transport).
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            int b = 0;
            while (metric(relay, "felix_relay_paced_closes_total") < 1) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the relay never closed the stalled subscriber; its relay metrics: "
                            + ClusterRelayLoadRun.metrics(scrape(relay)));
                }
                for (int k = 0; k < 20; k++, b++) {
                    List<byte[]> batch = new ArrayList<>();
                    for (int i = 0; i < 100; i++) {
                        batch.add(bytes("m-" + b + "-" + i + "-" + "x".repeat(200)));
                    }
                    publisher.publishBatch(batch);
                }
            }

            long next = -1;
            PlainSubscriber.Ended ended = null;
            while (ended == null) {
                PlainSubscriber.Received r = plain.next(Duration.ofSeconds(20));
                assertThat(r).as("the subscriber's stream goes on until its end").isNotNull();
                if (r instanceof PlainSubscriber.Events e) {
                    if (next >= 0) {
                        assertThat(e.base()).as("events arrive in order without holes").isEqualTo(next);
                    }
                    next = e.base() + e.count();
                } else {
                    ended = (PlainSubscriber.Ended) r;
                }
            }
            assertThat(ended.cause().code()).isEqualTo(ErrorCode.RESYNC);
            assertThat(ended.cause().availableOffset())
                    .as("resync names the first offset the subscriber has not received")
                    .isEqualTo(next);
        }
    }

    private static double metric(FelixServer node, String series) throws Exception {
        Double v = ClusterRelayLoadRun.metrics(scrape(node)).get(series);
        return v == null ? 0 : v;
    }

    private static String scrape(FelixServer node) {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + node.httpAddress().getPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
            return "(scrape failed: " + e + ")";
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
