package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A subscription's receive queue ({@code client_receive_queue}) under each policy: block tells the reader to
 * pause at the limit and resumes it once at half; drop_old evicts the oldest events and reports them as one
 * gap per shard at the head; the consumer waits with a timeout and is woken by an item or the end.
 */
@Timeout(60)
class ReceiveQueueTest {

    private static final StreamRef S = StreamRef.parse("t1/default/s");
    private static final long NO_WAIT = 0;

    private final AtomicInteger resumes = new AtomicInteger();

    private ReceiveQueue queue(int events, long bytes, ReceivePolicy policy) {
        return new ReceiveQueue(events, bytes, policy, resumes::incrementAndGet);
    }

    private static Event event(int shard, long offset, int size) {
        byte[] p = new byte[size];
        java.util.Arrays.fill(p, (byte) offset);
        return new Event(S, shard, offset, p);
    }

    private static List<Item> drain(ReceiveQueue q) throws InterruptedException {
        List<Item> out = new ArrayList<>();
        Item i;
        while ((i = q.poll(NO_WAIT)) != null) {
            out.add(i);
        }
        return out;
    }

    // ------------------------------------------------------------------ block

    @Test
    void block_addSaysPauseAtTheEventLimit_andTheReaderIsResumedOnceAtHalf() throws Exception {
        ReceiveQueue q = queue(4, 1 << 20, ReceivePolicy.BLOCK);
        assertThat(q.add(event(0, 0, 1))).isTrue();
        assertThat(q.add(event(0, 1, 1))).isTrue();
        assertThat(q.add(event(0, 2, 1))).isTrue();
        assertThat(q.add(event(0, 3, 1))).as("at the limit: pause reading").isFalse();
        assertThat(q.size()).isEqualTo(4);

        q.poll(NO_WAIT);
        assertThat(resumes).as("3 left: above half").hasValue(0);
        q.poll(NO_WAIT);
        assertThat(resumes).as("2 left: at half").hasValue(1);
        q.poll(NO_WAIT);
        q.poll(NO_WAIT);
        assertThat(resumes).as("once").hasValue(1);
    }

    @Test
    void block_theByteLimitPausesToo_andAnAlreadyDecodedEventIsStillAccepted() throws Exception {
        ReceiveQueue q = queue(1_000, 100, ReceivePolicy.BLOCK);
        assertThat(q.add(event(0, 0, 60))).isTrue();
        assertThat(q.add(event(0, 1, 60))).as("120 >= 100: pause").isFalse();
        assertThat(q.add(event(0, 2, 60))).as("decoded from the same read: kept, never dropped").isFalse();
        assertThat(q.size()).isEqualTo(3);

        assertThat(drain(q)).extracting(i -> ((Event) i).offset()).containsExactly(0L, 1L, 2L);
        assertThat(resumes).hasValue(1);
    }

    @Test
    void gapsDoNotCountAgainstTheLimits_butKeepTheirPlace() throws Exception {
        ReceiveQueue q = queue(2, 1 << 20, ReceivePolicy.BLOCK);
        Event first = event(0, 0, 1);
        Gap gap = new Gap(S, 0, 1, 4, "queue_overflow");
        Event after = event(0, 5, 1);
        q.add(first);
        assertThat(q.add(gap)).isTrue();
        assertThat(q.size()).isEqualTo(1);
        q.add(after);

        assertThat(drain(q)).containsExactly(first, gap, after);
    }

    @Test
    void hasRoom_anEmptyQueueTakesAnything_elseBothLimitsApply() {
        ReceiveQueue q = queue(2, 100, ReceivePolicy.DROP_NEW);
        assertThat(q.hasRoom(10_000)).as("empty").isTrue();
        q.add(event(0, 0, 60));
        assertThat(q.hasRoom(40)).isTrue();
        assertThat(q.hasRoom(41)).as("bytes").isFalse();
        q.add(event(0, 1, 10));
        assertThat(q.hasRoom(1)).as("events").isFalse();
    }

    // ------------------------------------------------------------------ drop_old

    @Test
    void dropOld_evictsTheOldestUntilTheNewEventFits_andReportsOneGapPerShardAtTheHead() throws Exception {
        ReceiveQueue q = queue(4, 1 << 20, ReceivePolicy.DROP_OLD);
        Event e10 = event(0, 10, 1);
        Event e20 = event(1, 20, 1);
        Event e11 = event(0, 11, 1);
        Event e21 = event(1, 21, 1);
        Event e12 = event(0, 12, 1);
        q.add(e10);
        q.add(e20);
        q.add(e11);
        q.add(e21);

        assertThat(q.evictOldest(1, S)).as("one event makes room").isEqualTo(1);
        assertThat(q.poll(NO_WAIT)).isEqualTo(new Gap(S, 0, 10, 10, "client_queue_overflow"));
        assertThat(q.add(e12)).isFalse();
        assertThat(q.evictOldest(1, S)).isEqualTo(1);
        assertThat(q.dropped()).isEqualTo(2);

        assertThat(drain(q)).containsExactly(new Gap(S, 1, 20, 20, "client_queue_overflow"), e11, e21, e12);
    }

    @Test
    void dropOld_oneRoundSpanningShardsAndGaps_coversEveryEvictedOffsetOnce() throws Exception {
        ReceiveQueue q = queue(4, 100, ReceivePolicy.DROP_OLD);
        q.add(event(0, 0, 30));
        q.add(new Gap(S, 0, 1, 2, "queue_overflow"));
        q.add(event(0, 3, 30));
        q.add(event(1, 7, 30));

        assertThat(q.evictOldest(90, S)).as("room for 90 bytes: every event goes").isEqualTo(3);

        List<Item> items = drain(q);
        assertThat(items).containsExactlyInAnyOrder(new Gap(S, 0, 0, 3, "client_queue_overflow"),
                new Gap(S, 1, 7, 7, "client_queue_overflow"));
        assertThat(q.size()).isZero();
    }

    // ------------------------------------------------------------------ the consumer

    @Test
    void poll_waitsUpToItsTimeout_andReturnsNullWhenNothingCame() throws Exception {
        ReceiveQueue q = queue(4, 1 << 20, ReceivePolicy.BLOCK);
        long t0 = System.nanoTime();
        assertThat(q.poll(TimeUnit.MILLISECONDS.toNanos(100))).isNull();
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
    }

    @Test
    void aWaitingConsumer_isWokenByAnItem_andByTheEnd() throws Exception {
        ReceiveQueue q = queue(4, 1 << 20, ReceivePolicy.BLOCK);
        CompletableFuture<Item> first = CompletableFuture.supplyAsync(() -> poll(q, 20));
        Awaitility.await().pollDelay(Duration.ofMillis(50)).atMost(Duration.ofSeconds(5)).until(() -> !first.isDone());
        Event e = event(0, 0, 1);
        q.add(e);
        assertThat(first.get(20, TimeUnit.SECONDS)).isSameAs(e);

        CompletableFuture<Item> second = CompletableFuture.supplyAsync(() -> poll(q, 20));
        long t0 = System.nanoTime();
        q.end();
        assertThat(second.get(20, TimeUnit.SECONDS)).isNull();
        assertThat(System.nanoTime() - t0).as("woken, not timed out").isLessThan(TimeUnit.SECONDS.toNanos(10));
        assertThat(q.endedAndEmpty()).isTrue();
    }

    @Test
    void afterTheEnd_queuedItemsAreStillHandedOut() throws Exception {
        ReceiveQueue q = queue(4, 1 << 20, ReceivePolicy.BLOCK);
        Event e = event(0, 0, 1);
        q.add(e);
        q.end();
        assertThat(q.endedAndEmpty()).isFalse();
        assertThat(q.poll(NO_WAIT)).isSameAs(e);
        assertThat(q.endedAndEmpty()).isTrue();
    }

    /**
     * An event-loop reader and an application thread, as in production: the reader pauses when told and
     * waits for the resume; every event arrives once, in order, its payload as written.
     */
    @Test
    void readerAndApplicationThreads_everyEventArrivesOnceInOrder() throws Exception {
        Semaphore resumed = new Semaphore(0);
        ReceiveQueue q = new ReceiveQueue(8, 64, ReceivePolicy.BLOCK, resumed::release);
        int total = 20_000;
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < total; i++) {
                if (!q.add(event(i % 3, i, 1 + i % 5))) {
                    try {
                        assertThat(resumed.tryAcquire(20, TimeUnit.SECONDS)).as("resumed").isTrue();
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }
            }
            q.end();
        });

        long next = 0;
        Item item;
        while ((item = q.poll(TimeUnit.SECONDS.toNanos(20))) != null) {
            Event e = (Event) item;
            assertThat(e.offset()).isEqualTo(next);
            assertThat(e.payload()).hasSize((int) (1 + next % 5)).containsOnly((byte) next);
            next++;
        }
        reader.get(20, TimeUnit.SECONDS);
        assertThat(next).isEqualTo(total);
    }

    private static Item poll(ReceiveQueue q, int seconds) {
        try {
            return q.poll(TimeUnit.SECONDS.toNanos(seconds));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
