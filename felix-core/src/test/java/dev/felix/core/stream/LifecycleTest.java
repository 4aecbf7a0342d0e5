package dev.felix.core.stream;

import static dev.felix.core.testing.Fixture.ROOMY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.testing.AckListener;
import dev.felix.core.testing.Await;
import dev.felix.core.testing.Collector;
import dev.felix.core.testing.Fixture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** Ending things: unsubscribing (and what it releases) and closing the broker (and what it fails). */
class LifecycleTest {

    private Fixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void unsubscribe_blockedSubscriber_releasesTheWriter() {
        fx = new Fixture(Fixture.config());
        Shard shard = fx.shard("release");
        Collector blocker = fx.manual(shard, StartPosition.LATEST, QueuePolicy.BLOCK, new QueueLimits(1, 1 << 20));
        Collector other = fx.draining(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY);
        Fixture.publish(shard, "e0");
        Fixture.publish(shard, "e1"); // blocker is full: the writer holds after this batch
        AckListener held = Fixture.publishAsync(shard, "e2");
        Fixture.writerBarrier(shard);
        assertThat(held.isDone()).isFalse();

        blocker.subscription.close();

        assertThat(Await.get(held.future).firstOffset()).isEqualTo(2);
        other.awaitCoveredTo(3);
        assertThat(other.payloads()).containsExactly("e0", "e1", "e2");
        Await.until("subscriber removed", () -> shard.info().subscribers() == 1);
        Await.until("queued items discarded", () -> blocker.subscription.queuedEvents() == 0); // nobody polled e0
        assertThat(blocker.subscription.poll()).isNull();
        assertThat(blocker.ended).as("an unsubscribe is not an end by the broker").isNotDone();
    }

    @Test
    void unsubscribe_twice_isHarmless() {
        fx = new Fixture(Fixture.config());
        Shard shard = fx.shard("twice");
        Collector c = fx.manual(shard, StartPosition.LATEST, null, ROOMY);

        c.subscription.close();
        c.subscription.close();

        Await.until("subscriber removed", () -> shard.info().subscribers() == 0);
        Fixture.publish(shard, "after");
        assertThat(c.subscription.poll()).isNull();
    }

    /**
     * Closing the broker while a block subscriber holds the writer: every subscription ends with
     * {@code unavailable} (exactly once), and publishes still waiting in the writer queue fail with
     * {@code unavailable} instead of hanging.
     */
    @Test
    void brokerClose_endsSubscriptionsWithUnavailable_andFailsQueuedPublishes() {
        fx = new Fixture(Fixture.config());
        Shard shard = fx.shard("close");
        Collector blocker = fx.manual(shard, StartPosition.LATEST, QueuePolicy.BLOCK, new QueueLimits(1, 1 << 20));
        Collector other = fx.draining(shard, StartPosition.LATEST, QueuePolicy.DROP_NEW, ROOMY);
        Fixture.publish(shard, "e0");
        Fixture.publish(shard, "e1");
        List<AckListener> queued = List.of(Fixture.publishAsync(shard, "e2"), Fixture.publishAsync(shard, "e3", "e4"));
        Fixture.writerBarrier(shard);

        fx.broker.close();

        for (Collector c : List.of(blocker, other)) {
            FelixError end = Await.get(c.ended);
            assertThat(end.code()).isEqualTo(ErrorCode.UNAVAILABLE);
            assertThat(c.endSignals()).isEqualTo(1);
        }
        for (AckListener l : queued) {
            assertThat(Await.failure(l.future).code()).isEqualTo(ErrorCode.UNAVAILABLE);
            assertThat(l.calls()).isEqualTo(1);
        }
    }

    @Test
    void brokerClose_itemsAlreadyQueued_canStillBePolled() {
        fx = new Fixture(Fixture.config());
        Shard shard = fx.shard("close-queued");
        Collector c = fx.manual(shard, StartPosition.LATEST, null, ROOMY);
        Fixture.publish(shard, "a");
        Fixture.publish(shard, "b", "c");

        fx.broker.close();
        assertThat(Await.get(c.ended).code()).isEqualTo(ErrorCode.UNAVAILABLE);

        c.drain();
        assertThat(c.payloads()).containsExactly("a", "b", "c"); // SubscriptionListener#onEnd: "may still be polled"
    }

    @Test
    void brokerClose_laterCalls_getAClearAnswer_notAnException() {
        fx = new Fixture(Fixture.config());
        Stream stream = fx.stream("late", 1);
        Shard shard = stream.shard(0);
        Collector c = fx.manual(shard, StartPosition.LATEST, null, new QueueLimits(2, 1 << 20));
        Fixture.publishEach(shard, "e", 0, 4); // full, with a space signal requested for the gap

        fx.broker.close();
        Await.get(c.ended);

        AckListener late = new AckListener();
        assertThat(shard.tryPublish(Fixture.request(late, "late"))).isTrue();
        assertThat(Await.failure(late.future).code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(Await.failure(shard.subscribe(SubscribeRequest.from(StartPosition.LATEST))).code())
                .isEqualTo(ErrorCode.UNAVAILABLE);
        assertThatCode(c::drain).doesNotThrowAnyException();
        assertThatCode(c.subscription::close).doesNotThrowAnyException();
        StreamName name = new StreamName("t", "ns", "late");
        for (ThrowingCall call : List.<ThrowingCall>of(
                () -> fx.broker.stream(name),
                () -> fx.broker.createStream(name, StreamConfig.ephemeral()))) {
            try {
                call.run();
                throw new AssertionError("expected unavailable");
            } catch (FelixException e) {
                assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
            }
        }
        assertThatCode(fx.broker::close).as("close is idempotent").doesNotThrowAnyException();
    }

    @Test
    void listen_afterTheBrokerEndedTheSubscription_isToldAtOnce() {
        fx = new Fixture(Fixture.config());
        Shard shard = fx.shard("late-listener");
        Subscription s = Fixture.subscribe(shard, StartPosition.LATEST, null, ROOMY);
        fx.broker.close();
        Await.until("writer ended the subscription", () -> shard.info().subscribers() == 0);

        Collector c = Collector.manual(s);

        assertThat(Await.get(c.ended).code()).isEqualTo(ErrorCode.UNAVAILABLE);
    }

    /**
     * Closing the broker in the middle of a full-speed load: every publish is answered exactly once
     * (accepted or unavailable), every subscription ends exactly once, and no publisher or consumer
     * thread sees an exception.
     */
    @RepeatedTest(5)
    void brokerClose_underLoad_everyPublishAnsweredOnce_everySubscriptionEndedOnce() {
        fx = new Fixture(Fixture.config().withWriterQueue(new QueueLimits(256, 1 << 20)));
        Stream stream = fx.stream("load", 2);
        List<Collector> subscribers = new ArrayList<>();
        for (int s = 0; s < 2; s++) {
            subscribers.add(fx.draining(stream.shard(s), StartPosition.LATEST, QueuePolicy.BLOCK, new QueueLimits(16, 1 << 20)));
            subscribers.add(fx.draining(stream.shard(s), StartPosition.LATEST, QueuePolicy.DROP_OLD, new QueueLimits(16, 1 << 20)));
        }
        ConcurrentLinkedQueue<AckListener> all = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<CompletableFuture<Void>> publishers = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(3); // one thread each: really concurrent
        for (int p = 0; p < 3; p++) {
            publishers.add(CompletableFuture.runAsync(() -> {
                int i = 0;
                while (!stop.get() && i < 100_000) { // bounded, so a stuck precondition cannot exhaust memory
                    AckListener l = new AckListener();
                    all.add(l);
                    Fixture.publishWithBackpressure(stream.shardFor(null), Fixture.request(l, "x" + i++));
                    if (l.future.isCompletedExceptionally()) {
                        return; // the broker is closed
                    }
                }
            }, threads));
        }
        Await.until("load is running on both shards", () -> stream.shard(0).info().nextOffset() > 2_000
                && stream.shard(1).info().nextOffset() > 2_000);
        assertThat(publishers).as("still publishing when the broker closes").noneMatch(CompletableFuture::isDone);

        fx.broker.close();
        stop.set(true);

        try {
            for (CompletableFuture<Void> p : publishers) {
                Await.get(p); // fails the test if a publisher thread threw
            }
        } finally {
            threads.shutdownNow();
        }
        for (AckListener l : all) {
            Await.until("publish answered", l::isDone);
        }
        for (Collector c : subscribers) {
            assertThat(Await.get(c.ended).code()).isEqualTo(ErrorCode.UNAVAILABLE);
        }
        for (AckListener l : all) {
            assertThat(l.calls()).isEqualTo(1);
            if (l.future.isCompletedExceptionally()) {
                assertThat(Await.failure(l.future).code()).isEqualTo(ErrorCode.UNAVAILABLE);
            }
        }
        for (Collector c : subscribers) {
            assertThat(c.endSignals()).isEqualTo(1);
            c.checkNoErrors();
        }
    }

    @FunctionalInterface
    interface ThrowingCall {
        void run() throws FelixException;
    }
}
