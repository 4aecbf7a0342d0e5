package dev.felix.client;

import dev.felix.wire.ErrorCode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.felix.core.StreamName;
import dev.felix.server.TestBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link Subscription}'s states against a real broker: subscribed (id, shards, items counted), ended by the
 * broker going away (what was received is still handed out, then the cause), closed by the application
 * (at once, and the broker unsubscribes), ended with its client; a refused subscribe leaves the client usable.
 */
@Timeout(120)
class SubscriptionLifecycleTest {

    private static final StreamRef LIFE = StreamRef.parse("t1/default/life");

    @TempDir
    Path dir;

    private static int subscribersAtTheBroker(TestBroker broker, StreamRef ref, int shard) throws Exception {
        return broker.server().broker().find(new StreamName(ref.tenant(), ref.namespace(), ref.stream()))
                .map(s -> s.info().shards().get(shard).subscribers()).orElse(0);
    }

    @Test
    void subscribed_knowsItsIdAndShards_andCountsWhatItHandsOut() throws Exception {
        StreamRef ref = StreamRef.parse("t1/default/three");
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            c.streams().create(ref, StreamSpec.ephemeral(3));
            Subscription s = c.subscribe(SubscribeOptions.of(ref));

            assertThat(s.id()).isNotNegative();
            assertThat(s.shards()).containsExactly(0, 1, 2);
            assertThat(s.stream()).isEqualTo(ref);
            assertThat(s.ended()).isFalse();

            Publisher p = c.publisher(ref);
            Set<Integer> shardsUsed = new HashSet<>();
            for (int i = 0; i < 30; i++) {
                shardsUsed.add(p.publishAsync("key-" + i, new byte[] {(byte) i}).get(20, TimeUnit.SECONDS).shard());
            }
            Set<Integer> seen = new HashSet<>();
            for (int i = 0; i < 30; i++) {
                Item item = s.next(Duration.ofSeconds(20));
                assertThat(item).isInstanceOf(Event.class);
                seen.add(((Event) item).shard());
            }
            assertThat(seen).isEqualTo(shardsUsed);
            assertThat(s.eventCount()).isEqualTo(30);
            assertThat(s.gapCount()).isZero();
            assertThat(s.queued()).isZero();
            for (int shard : s.shards()) {
                assertThat(s.incarnation(shard)).as("an ephemeral shard announces its incarnation").isNotNegative();
            }
        }
    }

    @Test
    void theBrokerShutsDown_whatWasReceivedIsStillHandedOut_thenNextThrowsTheShutdownReason() throws Exception {
        TestBroker broker = TestBroker.start(dir);
        try (FelixClient c = broker.connect()) {
            Subscription s = c.subscribe(SubscribeOptions.of(LIFE));
            Publisher p = c.publisher(LIFE);
            for (int i = 0; i < 50; i++) {
                p.publish(new byte[] {(byte) i});
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> s.queued() == 50);

            broker.close();
            await().atMost(Duration.ofSeconds(20)).until(s::ended);

            for (long offset = 0; offset < 50; offset++) {
                Item item = s.next(Duration.ofSeconds(5));
                assertThat(item).isInstanceOf(Event.class);
                assertThat(((Event) item).offset()).isEqualTo(offset);
                assertThat(((Event) item).payload()).containsExactly((byte) offset);
            }
            assertThatThrownBy(() -> s.next(Duration.ofSeconds(5))).isInstanceOfSatisfying(
                    FelixClientException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BROKER_SHUTTING_DOWN));
            assertThat(s.endCause().code()).isEqualTo(ErrorCode.BROKER_SHUTTING_DOWN);
            assertThat(s.iterator().hasNext()).isFalse();
        } finally {
            broker.close();
        }
    }

    @Test
    void close_endsItAtOnce_nextReturnsNull_andTheBrokerUnsubscribes() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            Subscription s = c.subscribe(SubscribeOptions.of(LIFE));
            await().atMost(Duration.ofSeconds(20)).until(() -> subscribersAtTheBroker(broker, LIFE, 0) == 1);
            Publisher p = c.publisher(LIFE);
            for (int i = 0; i < 5; i++) {
                p.publish(new byte[] {(byte) i});
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> s.queued() == 5);

            s.close();
            s.close(); // idempotent

            assertThat(s.ended()).isTrue();
            long t0 = System.nanoTime();
            assertThat(s.next(Duration.ofSeconds(30))).as("closed: nothing more, and no wait").isNull();
            assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(5));
            assertThat(s.iterator().hasNext()).isFalse();
            await().atMost(Duration.ofSeconds(20)).until(() -> subscribersAtTheBroker(broker, LIFE, 0) == 0);

            // The client is unaffected: a new subscription replays what the closed one left.
            Subscription again = c.subscribe(SubscribeOptions.of(LIFE).fromEarliest());
            assertThat(((Event) again.next(Duration.ofSeconds(20))).offset()).isZero();
        }
    }

    @Test
    void closingTheClient_endsItsSubscriptions_andRefusesNewRequests() throws Exception {
        try (TestBroker broker = TestBroker.start(dir)) {
            FelixClient c = broker.connect();
            Subscription s = c.subscribe(SubscribeOptions.of(LIFE));
            await().atMost(Duration.ofSeconds(20)).until(() -> subscribersAtTheBroker(broker, LIFE, 0) == 1);

            c.close();

            assertThat(s.ended()).isTrue();
            assertThat(s.next(Duration.ofSeconds(1))).isNull();
            assertThat(c.connected()).isFalse();
            assertThatThrownBy(() -> c.subscribe(SubscribeOptions.of(LIFE))).isInstanceOfSatisfying(
                    FelixClientException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.CONNECTION_LOST);
                        assertThat(e.getMessage()).contains("closed");
                    });
            assertThatThrownBy(() -> c.publisher(LIFE)).isInstanceOf(FelixClientException.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> subscribersAtTheBroker(broker, LIFE, 0) == 0);
        }
    }

    @Test
    void aHandler_getsEveryEventInOrder_thenTheEndWithItsCause_whenTheBrokerShutsDown() throws Exception {
        TestBroker broker = TestBroker.start(dir);
        try (FelixClient c = broker.connect()) {
            List<Long> offsets = new java.util.concurrent.CopyOnWriteArrayList<>();
            CompletableFuture<FelixClientException> end = new CompletableFuture<>();
            c.subscribe(SubscribeOptions.of(LIFE), new SubscriptionHandler() {
                @Override
                public void onEvent(Event event) {
                    offsets.add(event.offset());
                }

                @Override
                public void onEnd(FelixClientException cause) {
                    end.complete(cause);
                }
            });
            Publisher p = c.publisher(LIFE);
            for (int i = 0; i < 20; i++) {
                p.publish(new byte[] {(byte) i});
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> offsets.size() == 20);
            assertThat(end).isNotDone();

            broker.close();

            FelixClientException cause = end.get(30, TimeUnit.SECONDS);
            assertThat(cause).isNotNull();
            assertThat(cause.code()).isEqualTo(ErrorCode.BROKER_SHUTTING_DOWN);
            List<Long> expected = new ArrayList<>();
            for (long i = 0; i < 20; i++) {
                expected.add(i);
            }
            assertThat(offsets).containsExactlyElementsOf(expected);
        } finally {
            broker.close();
        }
    }

    @Test
    void aRefusedSubscribe_throwsItsCodeAndOffset_andLeavesTheClientUsable() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            c.publisher(LIFE).publish(new byte[] {1});

            assertThatThrownBy(() -> c.subscribe(SubscribeOptions.of(LIFE).fromOffset(5)))
                    .isInstanceOfSatisfying(FelixClientException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.CURSOR_IN_FUTURE);
                        assertThat(e.availableOffset()).isEqualTo(1);
                    });

            assertThat(c.connected()).isTrue();
            assertThat(subscribersAtTheBroker(broker, LIFE, 0)).isZero();
            Subscription s = c.subscribe(SubscribeOptions.of(LIFE).fromOffset(0));
            assertThat(((Event) s.next(Duration.ofSeconds(20))).offset()).isZero();
        }
    }
}
