package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.felix.wire.ErrorCode;
import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.Gap;
import dev.felix.client.Item;
import dev.felix.client.PublishAck;
import dev.felix.client.Publisher;
import dev.felix.client.ReceivePolicy;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.core.Checkpoint;
import dev.felix.wire.QueuePolicy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Publish and subscribe end to end over real QUIC on loopback. */
@Timeout(120)
class PubSubIntegrationTest {

    @TempDir
    Path dir;

    private static final StreamRef DEMO = StreamRef.parse("t1/default/demo");

    @Test
    void quickstart_subscriberPrintsTheFirstOffsetAndPayload() throws Exception {
        try (TestBroker broker = TestBroker.start(dir);
                FelixClient sub = broker.connect();
                FelixClient pub = broker.connect()) {
            Subscription s = sub.subscribe(SubscribeOptions.of(DEMO));
            PublishAck ack = pub.publisher(DEMO).publish("hello".getBytes(StandardCharsets.UTF_8));
            assertThat(ack.firstOffset()).isEqualTo(0);
            Item item = s.next(Duration.ofSeconds(10));
            assertThat(item).isInstanceOf(Event.class);
            Event e = (Event) item;
            assertThat(e.offset()).isEqualTo(0);
            assertThat(new String(e.payload(), StandardCharsets.UTF_8)).isEqualTo("hello");
            assertThat(e.stream()).isEqualTo(DEMO);
        }
    }

    @Test
    void withTwoEventLoops_subscribersOnEitherSocketGetEveryOffsetInOrder() throws Exception {
        int clients = 12;
        int events = 200;
        StreamRef s = StreamRef.parse("t1/default/loops");
        try (TestBroker broker = TestBroker.start(dir, Map.of("quic_io_threads", "2"));
                FelixClient pub = broker.connect()) {
            List<FelixClient> subscribers = new ArrayList<>();
            List<Subscription> subs = new ArrayList<>();
            try {
                for (int i = 0; i < clients; i++) {
                    FelixClient c = broker.connect();
                    subscribers.add(c);
                    subs.add(c.subscribe(SubscribeOptions.of(s)));
                }
                try (Publisher p = pub.publisher(s)) {
                    for (int i = 0; i < events; i++) {
                        p.publish(ByteBuffer.allocate(8).putLong(i).array());
                    }
                }
                for (Subscription sub : subs) {
                    for (long o = 0; o < events; o++) {
                        Item item = sub.next(Duration.ofSeconds(10));
                        assertThat(item).isInstanceOf(Event.class);
                        assertThat(((Event) item).offset()).isEqualTo(o);
                        assertThat(ByteBuffer.wrap(((Event) item).payload()).getLong()).isEqualTo(o);
                    }
                }
            } finally {
                subscribers.forEach(FelixClient::close);
            }
        }
    }

    @Test
    void block_everySubscriberGetsEveryOffsetInOrder() throws Exception {
        int total = 100_000;
        int batch = 100;
        try (TestBroker broker = TestBroker.start(dir, Map.of("subscriber_queue_policy", "block"));
                FelixClient pub = broker.connect()) {
            List<FelixClient> clients = new ArrayList<>();
            List<Subscription> subs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                FelixClient c = broker.connect();
                clients.add(c);
                subs.add(c.subscribe(SubscribeOptions.of(DEMO)));
            }
            List<CompletableFuture<long[]>> readers = new ArrayList<>();
            for (Subscription s : subs) {
                readers.add(CompletableFuture.supplyAsync(() -> readSequence(s, total)));
            }
            Publisher p = pub.publisher(DEMO);
            List<CompletableFuture<PublishAck>> acks = new ArrayList<>();
            for (int seq = 0; seq < total; seq += batch) {
                acks.add(p.publishBatchAsync(null, payloads(seq, batch)));
            }
            CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
            for (int i = 0; i < acks.size(); i++) {
                assertThat(acks.get(i).join().firstOffset()).isEqualTo((long) i * batch);
            }
            for (CompletableFuture<long[]> r : readers) {
                long[] result = r.get();
                assertThat(result[0]).as("events received").isEqualTo(total);
                assertThat(result[1]).as("order violations").isZero();
                assertThat(result[2]).as("gaps").isZero();
            }
            assertThat(broker.server().broker().metrics().dropped(Checkpoint.SUBSCRIBER_QUEUE).sum()).isZero();
            clients.forEach(FelixClient::close);
        }
    }

    @Test
    void dropNew_healthySubscribersLoseNothingAndTheStalledOneIsToldExactlyWhatItMissed() throws Exception {
        int total = 100_000;
        int batch = 100;
        Map<String, String> settings = Map.of("subscriber_queue_policy", "drop_new");
        try (TestBroker broker = TestBroker.start(dir, settings);
                FelixClient pub = broker.connect()) {
            FelixClient healthyA = broker.connect();
            FelixClient healthyB = broker.connect();
            // The stalled client reads nothing: a small window and receive queue back up to the broker fast.
            FelixClient stalled = broker.connect(b -> b
                    .transport(TestBroker.smallWindows(64 << 10))
                    .receiveQueue(100, 1 << 20, ReceivePolicy.BLOCK));
            Subscription a = healthyA.subscribe(SubscribeOptions.of(DEMO));
            Subscription b = healthyB.subscribe(SubscribeOptions.of(DEMO));
            // ... and its broker-side queue is small, so it overflows while the healthy ones keep up.
            Subscription s = stalled.subscribe(SubscribeOptions.of(DEMO).withQueue(null, 2000));
            java.util.concurrent.atomic.AtomicLong readA = new java.util.concurrent.atomic.AtomicLong();
            java.util.concurrent.atomic.AtomicLong readB = new java.util.concurrent.atomic.AtomicLong();
            CompletableFuture<long[]> ra = CompletableFuture.supplyAsync(() -> readSequence(a, total, readA));
            CompletableFuture<long[]> rb = CompletableFuture.supplyAsync(() -> readSequence(b, total, readB));

            // A publisher the healthy subscribers keep up with whatever the machine's load: it stays at most
            // HEALTHY_LEAD events ahead of the slower healthy reader, far less than a broker queue holds, while
            // the stalled subscriber (queue 2000, reading nothing) falls ever further behind.
            Publisher p = pub.publisher(DEMO);
            for (int seq = 0; seq < total; seq += batch) {
                awaitProgress(readA, readB, seq - HEALTHY_LEAD);
                p.publishBatch(payloads(seq, batch));
            }
            long[] resultA = ra.get();
            long[] resultB = rb.get();
            assertThat(resultA).containsExactly(total, 0, 0, 0);
            assertThat(resultB).containsExactly(total, 0, 0, 0);

            // Now the stalled subscriber reads: events plus gap notices must cover every offset exactly once.
            long[] seen = new long[total];
            long events = 0;
            long missed = 0;
            long next = 0;
            while (next < total) {
                Item item = s.next(Duration.ofSeconds(10));
                assertThat(item).as("item after offset " + next).isNotNull();
                if (item instanceof Event e) {
                    assertThat(e.offset()).isEqualTo(next);
                    assertThat(ByteBuffer.wrap(e.payload()).getLong()).isEqualTo(e.offset());
                    events++;
                    next++;
                } else {
                    Gap g = (Gap) item;
                    assertThat(g.from()).isEqualTo(next);
                    assertThat(g.reason()).isEqualTo("queue_overflow");
                    missed += g.missed();
                    next = g.to() + 1;
                }
            }
            assertThat(events + missed).isEqualTo(total);
            assertThat(missed).as("the stalled subscriber missed events").isPositive();
            long dropped = broker.server().broker().metrics().dropped(Checkpoint.SUBSCRIBER_QUEUE).sum();
            assertThat(dropped).as("broker drop counter equals what the stalled subscriber missed").isEqualTo(missed);
            assertThat(broker.scrapeMetrics()).contains(
                    "felix_dropped_events_total{checkpoint=\"subscriber_queue\"} " + (double) missed);
            healthyA.close();
            healthyB.close();
            stalled.close();
        }
    }

    @Test
    void subscribeFromEarliestAndFromAnOffsetReplaysFromMemory() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            Publisher p = c.publisher(DEMO);
            for (int i = 0; i < 10; i++) {
                p.publish(("m" + i).getBytes(StandardCharsets.UTF_8));
            }
            Subscription fromEarliest = c.subscribe(SubscribeOptions.of(DEMO).fromEarliest());
            Subscription fromFive = c.subscribe(SubscribeOptions.of(DEMO).fromOffset(5));
            for (long o = 0; o < 10; o++) {
                assertThat(((Event) fromEarliest.next(Duration.ofSeconds(5))).offset()).isEqualTo(o);
            }
            for (long o = 5; o < 10; o++) {
                Event e = (Event) fromFive.next(Duration.ofSeconds(5));
                assertThat(e.offset()).isEqualTo(o);
                assertThat(new String(e.payload(), StandardCharsets.UTF_8)).isEqualTo("m" + o);
            }
            p.publish("live".getBytes(StandardCharsets.UTF_8));
            assertThat(((Event) fromFive.next(Duration.ofSeconds(5))).offset()).isEqualTo(10);
        }
    }

    @Test
    void subscribePastTheTailIsCursorInFutureNamingTheTail() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            c.publisher(DEMO).publish(new byte[] {1});
            assertThatThrownBy(() -> c.subscribe(SubscribeOptions.of(DEMO).fromOffset(7)))
                    .isInstanceOfSatisfying(FelixClientException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.CURSOR_IN_FUTURE);
                        assertThat(e.availableOffset()).isEqualTo(1);
                    });
        }
    }

    @Test
    void subscribeBelowTheMemoryRingIsCursorTooOldNamingTheOldest() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("ring_events", "10"));
                FelixClient c = broker.connect()) {
            Publisher p = c.publisher(DEMO);
            for (int i = 0; i < 30; i++) {
                p.publish(new byte[] {(byte) i});
            }
            assertThatThrownBy(() -> c.subscribe(SubscribeOptions.of(DEMO).fromOffset(3)))
                    .isInstanceOfSatisfying(FelixClientException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.CURSOR_TOO_OLD);
                        assertThat(e.availableOffset()).isEqualTo(20);
                    });
        }
    }

    @Test
    void unknownStreamWithoutAutoCreateIsNotFound() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("auto_create", "false"));
                FelixClient c = broker.connect()) {
            Publisher p = c.publisher(StreamRef.parse("t1/default/nope"));
            assertThatThrownBy(() -> p.publish(new byte[] {1}))
                    .isInstanceOfSatisfying(FelixClientException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
            assertThatThrownBy(() -> c.subscribe(SubscribeOptions.of(StreamRef.parse("t1/default/nope"))))
                    .isInstanceOfSatisfying(FelixClientException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
            c.streams().create(StreamRef.parse("t1/default/made"), StreamSpec.ephemeral(1));
            assertThat(c.publisher(StreamRef.parse("t1/default/made")).publish(new byte[] {1}).firstOffset()).isZero();
        }
    }

    @Test
    void multiShardStream_keysPickStableShardsAndOneSubscriptionReadsAll() throws Exception {
        StreamRef ref = StreamRef.parse("t1/default/sharded");
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            c.streams().create(ref, StreamSpec.ephemeral(4));
            Subscription all = c.subscribe(SubscribeOptions.of(ref));
            assertThat(all.shards()).containsExactly(0, 1, 2, 3);
            Publisher p = c.publisher(ref);
            int shardOfA = p.publishAsync("key-a", new byte[] {1}).join().shard();
            assertThat(p.publishAsync("key-a", new byte[] {2}).join().shard()).isEqualTo(shardOfA);
            for (int i = 0; i < 40; i++) {
                p.publishAsync("k" + i, new byte[] {3}).join();
            }
            int received = 0;
            java.util.Set<Integer> shards = new java.util.HashSet<>();
            while (received < 42) {
                Event e = (Event) all.next(Duration.ofSeconds(5));
                assertThat(e).isNotNull();
                shards.add(e.shard());
                received++;
            }
            assertThat(shards).hasSizeGreaterThan(1);
        }
    }

    @Test
    void brokerShutdownEndsSubscriptionsAndFailsPublishesWithoutHanging() throws Exception {
        TestBroker broker = TestBroker.start(dir);
        try (FelixClient c = broker.connect()) {
            Subscription s = c.subscribe(SubscribeOptions.of(DEMO));
            Publisher p = c.publisher(DEMO);
            p.publish(new byte[] {1});
            assertThat(s.next(Duration.ofSeconds(5))).isInstanceOf(Event.class);
            broker.close();
            await().atMost(Duration.ofSeconds(10)).until(() -> !c.connected());
            assertThatThrownBy(() -> s.next(Duration.ofSeconds(5))).isInstanceOf(FelixClientException.class);
            assertThatThrownBy(() -> p.publish(new byte[] {2})).isInstanceOfSatisfying(FelixClientException.class,
                    e -> assertThat(e.code()).isEqualTo(ErrorCode.BROKER_SHUTTING_DOWN));
        }
    }

    @Test
    void closingASubscriptionStopsDeliveryAtTheBroker() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            Subscription s = c.subscribe(SubscribeOptions.of(DEMO));
            await().until(() -> broker.server().broker().find(new dev.felix.core.StreamName("t1", "default", "demo"))
                    .map(st -> st.info().shards().get(0).subscribers()).orElse(0) == 1);
            s.close();
            await().atMost(Duration.ofSeconds(10)).until(() -> broker.server().broker()
                    .find(new dev.felix.core.StreamName("t1", "default", "demo"))
                    .map(st -> st.info().shards().get(0).subscribers()).orElse(-1) == 0);
        }
    }

    // ------------------------------------------------------------------ helpers

    private static List<byte[]> payloads(int firstSeq, int n) {
        List<byte[]> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(ByteBuffer.allocate(16).putLong(firstSeq + i).putLong(42).array());
        }
        return list;
    }

    /** Reads {@code total} events; returns {received, order violations, gaps, payload mismatches}. */
    /** How far the publisher in the drop_new test may run ahead of the healthy subscribers. */
    private static final int HEALTHY_LEAD = 1000;

    /** Waits (bounded) until both readers have taken at least {@code events} events. */
    private static void awaitProgress(java.util.concurrent.atomic.AtomicLong a,
            java.util.concurrent.atomic.AtomicLong b, long events) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (Math.min(a.get(), b.get()) < events) {
            assertThat(System.nanoTime() - deadline).as("healthy readers stuck at %d / %d", a.get(), b.get())
                    .isNegative();
            java.util.concurrent.locks.LockSupport.parkNanos(100_000);
        }
    }

    private static long[] readSequence(Subscription s, int total) {
        return readSequence(s, total, new java.util.concurrent.atomic.AtomicLong());
    }

    private static long[] readSequence(Subscription s, int total, java.util.concurrent.atomic.AtomicLong progress) {
        long received = 0;
        long disorder = 0;
        long gaps = 0;
        long mismatches = 0;
        long expected = 0;
        while (received < total) {
            Item item = s.next(Duration.ofSeconds(30));
            if (item == null) {
                break;
            }
            if (item instanceof Gap) {
                gaps++;
                continue;
            }
            Event e = (Event) item;
            if (e.offset() != expected) {
                disorder++;
            }
            if (ByteBuffer.wrap(e.payload()).getLong() != e.offset()) {
                mismatches++;
            }
            expected = e.offset() + 1;
            received++;
            progress.lazySet(received);
        }
        return new long[] {received, disorder, gaps, mismatches};
    }
}
