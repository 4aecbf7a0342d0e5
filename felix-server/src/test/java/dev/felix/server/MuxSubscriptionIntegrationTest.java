package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.Item;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.core.StreamName;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Multiplexed subscriptions over QUIC: every subscription of a connection on one session stream, each
 * batch written once per connection for all of them, per-subscription credit so a stalled consumer holds up
 * nobody else, and unsubscribe.
 */
@Timeout(120)
class MuxSubscriptionIntegrationTest {

    @TempDir
    Path dir;

    private static final StreamRef S = StreamRef.parse("t1/default/mux");

    @Test
    void manySubscriptionsOnOneConnection_shareEachBatchFrame_andEachGetsEveryEventInOrder() throws Exception {
        int subscribers = 200;
        int events = 300;
        try (TestBroker broker = TestBroker.start(dir); FelixClient pub = broker.connect();
                FelixClient sub = broker.connect()) {
            List<Subscription> subs = new ArrayList<>();
            for (int i = 0; i < subscribers; i++) {
                subs.add(sub.subscribe(SubscribeOptions.of(S)));
            }
            long framesBefore = broker.server().metrics().muxFrames.sum();
            try (Publisher p = pub.publisher(S)) {
                for (int i = 0; i < events; i++) {
                    p.publish(ByteBuffer.allocate(8).putLong(i).array()); // one acked publish: one batch each
                }
            }
            for (Subscription s : subs) {
                for (long o = 0; o < events; o++) {
                    Item item = s.next(Duration.ofSeconds(10));
                    assertThat(item).isInstanceOfSatisfying(Event.class, e -> {
                        assertThat(e.offset()).isEqualTo(ByteBuffer.wrap(e.payload()).getLong());
                    });
                    assertThat(((Event) item).offset()).isEqualTo(o);
                }
            }
            long frames = broker.server().metrics().muxFrames.sum() - framesBefore;
            assertThat(frames).as("a batch crosses the connection once, not once per subscription")
                    .isLessThanOrEqualTo(events * 2L).isGreaterThan(0);
            assertThat(broker.server().metrics().deliveredEvents.sum())
                    .as("but counts as a delivery to each of them").isGreaterThanOrEqualTo((long) events * subscribers);
            subs.forEach(Subscription::close);
            await().until(() -> broker.server().broker().find(new StreamName("t1", "default", "mux"))
                    .map(st -> st.info().shards().get(0).subscribers()).orElse(-1) == 0);
        }
    }

    @Test
    void tenThousandSubscriptions_setUpPipelined_shareHandlerThreads_andEachGetsEveryEventInOrder() throws Exception {
        int connections = 10;
        int perConnection = 1_000;
        int events = 20;
        try (TestBroker broker = TestBroker.start(dir); FelixClient pub = broker.connect()) {
            List<FelixClient> clients = new ArrayList<>();
            try {
                for (int i = 0; i < connections; i++) {
                    clients.add(broker.connect(b -> b.handlerThreads(1)));
                }
                AtomicLongArray next = new AtomicLongArray(connections * perConnection);
                AtomicInteger wrong = new AtomicInteger();
                List<CompletableFuture<Subscription>> pending = new ArrayList<>();
                for (int i = 0; i < connections * perConnection; i++) {
                    int sub = i;
                    pending.add(clients.get(i % connections).subscribeAsync(SubscribeOptions.of(S), e -> {
                        if (e.offset() != next.get(sub) || ByteBuffer.wrap(e.payload()).getLong() != e.offset()) {
                            wrong.incrementAndGet();
                        }
                        next.set(sub, e.offset() + 1);
                    }));
                }
                CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
                assertThat(Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().startsWith("felix-handler")).count())
                        .as("handlers share each client's pool: no thread per subscription")
                        .isLessThanOrEqualTo(connections);
                try (Publisher p = pub.publisher(S)) {
                    for (int i = 0; i < events; i++) {
                        p.publish(ByteBuffer.allocate(8).putLong(i).array());
                    }
                }
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    for (int i = 0; i < next.length(); i++) {
                        if (next.get(i) < events) {
                            return false;
                        }
                    }
                    return true;
                });
                assertThat(wrong.get()).as("events out of order or with the wrong payload").isZero();
                assertThat(broker.server().broker().find(new StreamName("t1", "default", "mux"))
                        .map(st -> st.info().shards().get(0).subscribers()).orElse(-1))
                        .isEqualTo(connections * perConnection);
            } finally {
                clients.forEach(FelixClient::close);
            }
        }
    }

    @Test
    void aStalledSubscription_holdsUpNoOtherOnTheSameStream_andCatchesUpFromTheLogLater() throws Exception {
        int events = 3_000;
        // Small broker-side queues and a small client window: the stalled subscription's queue fills at once.
        try (TestBroker broker = TestBroker.start(dir, Map.of("subscriber_queue_events", "64"));
                FelixClient pub = broker.connect();
                FelixClient sub = broker.connect(b -> b.receiveQueue(32, 1 << 20, dev.felix.client.ReceivePolicy.BLOCK))) {
            pub.streams().create(S, dev.felix.client.StreamSpec.durable(1, "periodic")); // catch_up by default
            Subscription stalled = sub.subscribe(SubscribeOptions.of(S));
            Subscription healthy = sub.subscribe(SubscribeOptions.of(S));
            try (Publisher p = pub.publisher(S)) {
                // Batches of 100 events, each larger than the stalled one's window of 32: the broker must split
                // a batch rather than overrun the window.
                for (int i = 0; i < events; i += 100) {
                    List<byte[]> batch = new ArrayList<>();
                    for (int j = i; j < i + 100; j++) {
                        batch.add(ByteBuffer.allocate(8).putLong(j).array());
                    }
                    p.publishBatchAsync(null, batch);
                }
                assertEveryOffset(healthy, events, "the healthy one, while the other reads nothing");
            }
            assertThat(stalled.queued()).as("the stalled one holds at most its window").isLessThanOrEqualTo(32);
            assertEveryOffset(stalled, events, "the stalled one, later, from the log");
            assertThat(broker.server().broker().metrics().catchUpDetached.sum())
                    .as("its broker-side queue filled and it was fed from the log").isPositive();
        }
    }

    private static void assertEveryOffset(Subscription s, int events, String who) {
        for (long o = 0; o < events; o++) {
            Item item = s.next(Duration.ofSeconds(10));
            assertThat(item).as(who + " at " + o).isInstanceOf(Event.class);
            assertThat(((Event) item).offset()).isEqualTo(o);
            assertThat(ByteBuffer.wrap(((Event) item).payload()).getLong()).isEqualTo(o);
        }
    }
}
