package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.Item;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code pooled_payloads} on (the default), binary publishes keep their payloads in payload blocks: every
 * subscriber, live or replaying, small frames or large shared and split ones, gets every byte in order; the broker
 * holds exactly what its memory ring keeps once the subscribers have written everything
 * ({@code felix_pooled_payload_bytes}), and nothing once the stream is deleted. Netty's leak detection runs at PARANOID
 * in this module's tests, so a pooled buffer never given back fails the class.
 */
@Timeout(120)
class PooledPayloadsIntegrationTest {

    @TempDir
    Path dir;

    private static final StreamRef STREAM = StreamRef.parse("t1/default/pooled");
    private static final int RING_EVENTS = 4;
    private static final int PAYLOAD = 100;
    private static final Map<String, String> POOLED = Map.of("pooled_payloads", "true");

    /** {@code size} bytes of one letter, starting with {@code i} in digits: each event tells which it is. */
    static byte[] payload(int i, int size) {
        byte[] p = new byte[size];
        Arrays.fill(p, (byte) ('a' + i % 26));
        byte[] tag = Integer.toString(i).getBytes(StandardCharsets.UTF_8);
        System.arraycopy(tag, 0, p, 0, Math.min(tag.length, size));
        return p;
    }

    private static long held(TestBroker broker) {
        return (long) CleanCloseGaugesTest.gauge(broker, "felix_pooled_payload_bytes");
    }

    /** Publishes {@code payload(0, PAYLOAD) .. payload(n - 1, PAYLOAD)} to {@code ref}, one acknowledged publish each. */
    private static void publishEach(FelixClient client, StreamRef ref, int n) {
        try (Publisher p = client.publisher(ref)) {
            for (int i = 0; i < n; i++) {
                p.publish(payload(i, PAYLOAD));
            }
        }
    }

    /** The next {@code n} events of {@code s}, each checked against {@code payload(first + k, size)}. */
    private static void expect(Subscription s, int first, int n, int size) throws Exception {
        for (int k = 0; k < n; k++) {
            Item item = s.next(Duration.ofSeconds(10));
            assertThat(item).as("event %d", first + k).isInstanceOf(Event.class);
            Event e = (Event) item;
            assertThat(e.offset()).isEqualTo(first + k);
            assertThat(e.payload()).as("payload at offset %d", first + k).isEqualTo(payload(first + k, size));
        }
    }

    @Test
    void liveAndReplayingSubscribersGetEveryPayload_andTheBrokerHoldsOnlyWhatItsRingKeeps() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("ring_events", Integer.toString(RING_EVENTS))); // defaults
                FelixClient sub = broker.connect();
                FelixClient pub = broker.connect()) {
            sub.streams().create(STREAM, StreamSpec.ephemeral(1));
            Subscription live = sub.subscribe(SubscribeOptions.of(STREAM));
            publishEach(pub, STREAM, 20);
            expect(live, 0, 20, PAYLOAD);
            long ring = RING_EVENTS * (4L + PAYLOAD);
            await().atMost(Duration.ofSeconds(10)).until(() -> held(broker) == ring);
            double slabs = CleanCloseGaugesTest.gauge(broker, "felix_payload_block_bytes")
                    / dev.felix.server.protocol.PayloadBlocks.SLAB_BYTES;
            assertThat(slabs).as("the process's slabs (another test's broker may have added some)")
                    .isGreaterThanOrEqualTo(1).isEqualTo(Math.rint(slabs));

            Subscription replay = sub.subscribe(SubscribeOptions.of(STREAM).fromEarliest()); // the ring's oldest
            expect(replay, 20 - RING_EVENTS, RING_EVENTS, PAYLOAD);
            await().atMost(Duration.ofSeconds(10)).until(() -> held(broker) == ring);

            replay.close();
            live.close();
            sub.streams().delete(STREAM, true);
            await().atMost(Duration.ofSeconds(10)).until(() -> held(broker) == 0);
        }
    }

    @Test
    void largePayloads_sharedAndSplitFrames_arriveWhole_forEverySubscriber() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, POOLED);
                FelixClient sub = broker.connect();
                FelixClient pub = broker.connect()) {
            sub.streams().create(STREAM, StreamSpec.ephemeral(1));
            List<Subscription> subs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                subs.add(sub.subscribe(SubscribeOptions.of(STREAM)));
            }
            int size = 20 << 10; // above the copy limit: shared frames; ten of them exceed one 64 KiB frame
            List<byte[]> batch = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                batch.add(payload(i, size));
            }
            try (Publisher p = pub.publisher(STREAM)) {
                p.publishBatch(batch);
                p.publish(payload(10, size));
            }
            for (Subscription s : subs) {
                expect(s, 0, 11, size);
            }
            long all = 11 * (4L + size); // the ring keeps all eleven; the writes gave theirs back
            await().atMost(Duration.ofSeconds(10)).until(() -> held(broker) == all);
        }
    }

    @Test
    void turnedOff_nothingIsPooled_andDeliveryIsTheSame() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("pooled_payloads", "false"));
                FelixClient c = broker.connect()) {
            c.streams().create(STREAM, StreamSpec.ephemeral(1));
            Subscription s = c.subscribe(SubscribeOptions.of(STREAM));
            publishEach(c, STREAM, 5);
            expect(s, 0, 5, PAYLOAD);
            assertThat(held(broker)).isZero();
        }
    }

    @Test
    void aDurableStream_appendsFromThePooledBuffers_andAfterARestartReadsEveryPayloadBackFromItsLog() throws Exception {
        StreamRef durable = StreamRef.parse("t1/default/on-disk");
        try (TestBroker broker = TestBroker.start(dir, POOLED);
                FelixClient c = broker.connect()) {
            c.streams().create(durable, StreamSpec.durable(1, "on_commit"));
            Subscription s = c.subscribe(SubscribeOptions.of(durable));
            try (Publisher p = c.publisher(durable)) {
                for (int i = 0; i < 5; i++) {
                    p.publish(payload(i, PAYLOAD));
                }
                p.publishBatch(List.of(payload(5, PAYLOAD), payload(6, 3 * PAYLOAD), payload(7, 0)));
            }
            expect(s, 0, 5, PAYLOAD);
            long ring = 5 * (4L + PAYLOAD) + (4L + PAYLOAD) + (4L + 3 * PAYLOAD) + 4L;
            await().atMost(Duration.ofSeconds(10)).until(() -> held(broker) == ring);
        }
        try (TestBroker broker = TestBroker.start(dir, POOLED);
                FelixClient c = broker.connect()) {
            Subscription s = c.subscribe(SubscribeOptions.of(durable).fromEarliest());
            expect(s, 0, 6, PAYLOAD);
            Event big = (Event) s.next(Duration.ofSeconds(10));
            assertThat(big.payload()).isEqualTo(payload(6, 3 * PAYLOAD));
            Event empty = (Event) s.next(Duration.ofSeconds(10));
            assertThat(empty.offset()).isEqualTo(7);
            assertThat(empty.payload()).isEmpty();
            assertThat(held(broker)).as("read back from the log: arrays").isZero();
        }
    }
}
