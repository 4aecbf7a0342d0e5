package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.Gap;
import dev.felix.client.Item;
import dev.felix.client.Publisher;
import dev.felix.client.ReceivePolicy;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.client.SubscriptionHandler;
import dev.felix.wire.QueuePolicy;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The SDK's own checkpoints end to end: receive-queue policies, gap healing, incarnations, callbacks. */
@Timeout(120)
class ClientQueuesIntegrationTest {

    @TempDir
    Path dir;

    private static final StreamRef S = StreamRef.parse("t1/default/s");
    private static final int TOTAL = 5_000;

    @Test
    void receiveQueueDropNew_reportsExactlyWhatTheClientDropped() throws Exception {
        assertClientDropsAreReported(ReceivePolicy.DROP_NEW);
    }

    @Test
    void receiveQueueDropOld_reportsExactlyWhatTheClientEvicted() throws Exception {
        assertClientDropsAreReported(ReceivePolicy.DROP_OLD);
    }

    private void assertClientDropsAreReported(ReceivePolicy policy) throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("subscriber_queue_policy", "block"));
                FelixClient pub = broker.connect();
                FelixClient sub = broker.connect(b -> b.receiveQueue(100, 1 << 20, policy))) {
            Subscription s = sub.subscribe(SubscribeOptions.of(S));
            publish(pub.publisher(S), 0, TOTAL);
            // The subscriber read nothing while publishing ran: its own queue dropped the surplus.
            await().until(() -> s.eventCount() + s.locallyDropped() >= TOTAL);
            long events = 0;
            long missed = 0;
            long next = 0;
            boolean sawGap = false;
            while (next < TOTAL) {
                Item item = s.next(Duration.ofSeconds(10));
                assertThat(item).as("item at " + next).isNotNull();
                if (item instanceof Gap g) {
                    assertThat(g.from()).isEqualTo(next);
                    assertThat(g.reason()).isEqualTo("client_queue_overflow");
                    missed += g.missed();
                    next = g.to() + 1;
                    sawGap = true;
                } else {
                    Event e = (Event) item;
                    assertThat(e.offset()).isEqualTo(next);
                    assertThat(ByteBuffer.wrap(e.payload()).getLong()).isEqualTo(next);
                    events++;
                    next++;
                }
            }
            assertThat(sawGap).isTrue();
            assertThat(events + missed).isEqualTo(TOTAL);
            assertThat(missed).isEqualTo(s.locallyDropped());
            assertThat(sub.metrics().snapshot())
                    .containsEntry("felix_client_dropped_events_total{checkpoint=\"client_receive_queue\"}", missed);
            if (policy == ReceivePolicy.DROP_NEW) {
                assertThat(firstEvents(s, 0)).isTrue(); // drop_new kept the oldest: offset 0 was delivered
            }
        }
    }

    @Test
    void healingGaps_onADurableStream_deliversEveryEventInOrderDespiteClientDrops() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient pub = broker.connect();
                FelixClient sub = broker.connect(b -> b.receiveQueue(100, 1 << 20, ReceivePolicy.DROP_NEW))) {
            pub.streams().create(S, StreamSpec.durable(1, "periodic"));
            Subscription s = sub.subscribe(SubscribeOptions.of(S).withQueue(QueuePolicy.CATCH_UP, null).healingGaps());
            publish(pub.publisher(S), 0, TOTAL);
            await().until(() -> s.eventCount() + s.locallyDropped() >= TOTAL);
            assertThat(s.locallyDropped()).as("the client queue dropped some").isPositive();
            for (long next = 0; next < TOTAL; next++) {
                Item item = s.next(Duration.ofSeconds(10));
                assertThat(item).as("healed: no gap at " + next).isInstanceOf(Event.class);
                assertThat(((Event) item).offset()).isEqualTo(next);
            }
            assertThat(s.healedEvents()).isEqualTo(s.locallyDropped());
        }
    }

    @Test
    void resumeAgainstARestartedEphemeralShard_beginsWithAnIncarnationGap() throws Exception {
        long incarnation;
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            Subscription s = c.subscribe(SubscribeOptions.of(S));
            publish(c.publisher(S), 0, 10);
            for (int i = 0; i < 10; i++) {
                assertThat(s.next(Duration.ofSeconds(5))).isInstanceOf(Event.class);
            }
            incarnation = s.incarnation(0);
            assertThat(incarnation).isPositive();
        }
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            publish(c.publisher(S), 0, 3); // the restarted shard numbers from 0 again
            Subscription resumed = c.subscribe(SubscribeOptions.of(S).resume(10, incarnation));
            Item first = resumed.next(Duration.ofSeconds(5));
            assertThat(first).isInstanceOfSatisfying(Gap.class, g -> {
                assertThat(g.reason()).isEqualTo("incarnation");
                assertThat(g.from()).isEqualTo(10);
                assertThat(g.missed()).isEqualTo(-1);
            });
            for (long o = 0; o < 3; o++) {
                assertThat(((Event) resumed.next(Duration.ofSeconds(5))).offset()).isEqualTo(o);
            }
            assertThat(resumed.incarnation(0)).isNotEqualTo(incarnation);
            // Resuming against the current incarnation is an ordinary resume.
            Subscription same = c.subscribe(SubscribeOptions.of(S).resume(1, resumed.incarnation(0)));
            assertThat(((Event) same.next(Duration.ofSeconds(5))).offset()).isEqualTo(1);
        }
    }

    @Test
    void callbackStyle_deliversInOrderOnTheSharedHandlerThreadsAndEndsOnClose() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            List<Long> offsets = new CopyOnWriteArrayList<>();
            List<String> threads = new CopyOnWriteArrayList<>();
            CompletableFuture<FelixClientException> ended = new CompletableFuture<>();
            Subscription s = c.subscribe(SubscribeOptions.of(S), new SubscriptionHandler() {
                @Override
                public void onEvent(Event event) {
                    offsets.add(event.offset());
                    threads.add(Thread.currentThread().getName());
                }

                @Override
                public void onEnd(FelixClientException cause) {
                    ended.complete(cause);
                }
            });
            publish(c.publisher(S), 0, 100);
            await().until(() -> offsets.size() == 100);
            List<Long> expected = new ArrayList<>();
            for (long i = 0; i < 100; i++) {
                expected.add(i);
            }
            assertThat(offsets).isEqualTo(expected);
            assertThat(threads).allMatch(t -> t.startsWith("felix-handler-"));
            s.close();
            assertThat(ended.get(10, java.util.concurrent.TimeUnit.SECONDS)).isNull();
        }
    }

    @Test
    void fiveHundredHandlers_shareTwoThreads_andEachGetsEveryEventInOrder() throws Exception {
        int subscribers = 500;
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect(b -> b.handlerThreads(2))) {
            List<List<Long>> seen = new ArrayList<>();
            java.util.Set<String> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
            List<Subscription> subs = new ArrayList<>();
            for (int i = 0; i < subscribers; i++) {
                List<Long> offsets = new CopyOnWriteArrayList<>();
                seen.add(offsets);
                subs.add(c.subscribe(SubscribeOptions.of(S), new SubscriptionHandler() {
                    @Override
                    public void onEvent(Event event) {
                        offsets.add(event.offset());
                        threads.add(Thread.currentThread().getName());
                    }
                }));
            }
            publish(c.publisher(S), 0, 50);
            await().atMost(java.time.Duration.ofSeconds(30))
                    .until(() -> seen.stream().allMatch(l -> l.size() == 50));
            for (List<Long> offsets : seen) {
                for (int i = 0; i < 50; i++) {
                    assertThat(offsets.get(i)).isEqualTo(i);
                }
            }
            assertThat(threads).as("no thread per subscription").hasSizeLessThanOrEqualTo(2)
                    .allMatch(t -> t.startsWith("felix-handler-"));
            subs.forEach(Subscription::close);
        }
    }

    private static boolean firstEvents(Subscription s, long offset) {
        return s.eventCount() > 0 && offset == 0;
    }

    private static void publish(Publisher p, int from, int count) {
        for (int i = from; i < from + count; i += 100) {
            List<byte[]> batch = new ArrayList<>();
            for (int j = i; j < Math.min(i + 100, from + count); j++) {
                batch.add(ByteBuffer.allocate(8).putLong(j).array());
            }
            p.publishBatch(batch);
        }
    }
}
