package dev.felix.core.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.QueueLimits;
import dev.felix.core.testing.Await;
import dev.felix.core.testing.Coverage;
import dev.felix.core.testing.QueueSanitySuite;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link SubscriberQueue} in the core's shared queue sanity suite ({@link QueueSanitySuite}: FIFO order, the
 * event and byte bounds, wake-ups, the space signal, two threads), plus what only this queue has: gap
 * notices queued with or without a batch, batches of many events, {@code drop_old} eviction with gap merging,
 * and extending a queued gap. Batches hold 1-byte events, so one unit of weight is one byte.
 */
class SubscriberQueueSanityTest extends QueueSanitySuite {

    @Override
    protected QueueUnderTest newQueue(QueueLimits limits, Runnable spaceListener) {
        SubscriberQueue q = new SubscriberQueue(limits, spaceListener);
        return new QueueUnderTest() {
            @Override
            public Offered offer(long seq, int units, boolean signalWhenSpace) {
                byte[] payload = new byte[units];
                java.util.Arrays.fill(payload, (byte) seq);
                return Offered.valueOf(q.offer(null, new EventBatch(0, seq, new byte[][] {payload}, 0),
                        signalWhenSpace).name());
            }

            @Override
            public long poll() {
                Delivery d = q.poll();
                if (d == null) {
                    return -1;
                }
                EventBatch b = (EventBatch) d;
                assertThat(b.eventCount()).isEqualTo(1);
                for (byte x : b.payload(0)) {
                    assertThat(x).as("payload written before the offer").isEqualTo((byte) b.baseOffset());
                }
                return b.baseOffset();
            }

            @Override
            public long[] room() {
                return q.room();
            }

            @Override
            public boolean isEmpty() {
                return q.isEmpty();
            }

            @Override
            public void requestSpaceSignal() {
                q.requestSpaceSignal();
            }

            @Override
            public void clear() {
                q.clear();
            }
        };
    }

    @Override
    protected long unitWeight() {
        return 1;
    }

    // ------------------------------------------------------------------ helpers

    static QueueLimits limits(Spec spec) {
        return new QueueLimits(spec.events(), spec.units());
    }

    /** A batch of {@code count} 1-byte events at {@code base}; each payload is its offset's low byte. */
    static EventBatch batch(long base, int count) {
        byte[][] p = new byte[count][];
        for (int i = 0; i < count; i++) {
            p[i] = new byte[] {(byte) (base + i)};
        }
        return new EventBatch(0, base, p, 0);
    }

    static EventBatch sizedBatch(long base, int bytes) {
        return new EventBatch(0, base, new byte[][] {new byte[bytes]}, 0);
    }

    static GapNotice gap(long from, long to) {
        return new GapNotice(0, from, to, GapNotice.Reason.QUEUE_OVERFLOW);
    }

    static List<Delivery> drain(SubscriberQueue q) {
        List<Delivery> out = new ArrayList<>();
        Delivery d;
        while ((d = q.poll()) != null) {
            out.add(d);
        }
        return out;
    }

    /** A queue whose space listener counts its runs. */
    static final class Counted {
        final AtomicInteger signals = new AtomicInteger();
        final SubscriberQueue queue;

        Counted(QueueLimits limits) {
            queue = new SubscriberQueue(limits, signals::incrementAndGet);
        }
    }

    /** Fills the queue with single-event batches at offsets 0..capacity-1. */
    static List<EventBatch> fill(SubscriberQueue q, int capacity) {
        List<EventBatch> offered = new ArrayList<>();
        for (int i = 0; i < capacity; i++) {
            EventBatch b = batch(i, 1);
            assertThat(q.offer(null, b, false)).isEqualTo(i == 0 ? SubscriberQueue.Offer.ADDED_WAKE
                    : SubscriberQueue.Offer.ADDED);
            offered.add(b);
        }
        return offered;
    }

    // ------------------------------------------------------------------ gap notices and batches

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void poll_returnsItemsInOfferOrder_gapBeforeItsBatch(Spec spec) {
        SubscriberQueue q = new Counted(limits(spec)).queue;
        List<Delivery> expected = new ArrayList<>();
        long offset = 0;
        for (int i = 0; i < spec.capacity(); i++) {
            GapNotice g = i % 2 == 1 ? gap(offset, offset + 2) : null;
            if (g != null) {
                expected.add(g);
                offset += 3;
            }
            EventBatch b = batch(offset++, 1);
            expected.add(b);
            assertThat(q.offer(g, b, false)).isNotEqualTo(SubscriberQueue.Offer.FULL);
        }

        List<Delivery> got = drain(q);

        assertThat(got).containsExactlyElementsOf(expected);
        for (int i = 0; i < got.size(); i++) {
            assertThat(got.get(i)).isSameAs(expected.get(i));
        }
        assertThat(Coverage.walk(0, got)).isEqualTo(offset);
        assertThat(q.poll()).isNull();
        assertThat(q.events()).isZero();
        assertThat(q.bytes()).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void offer_full_theGapOfferedWithTheBatchIsNotQueuedEither(Spec spec) {
        SubscriberQueue q = new Counted(limits(spec)).queue;
        List<EventBatch> offered = fill(q, spec.capacity());

        EventBatch refused = batch(spec.capacity(), 1);
        assertThat(q.offer(gap(100, 100), refused, false)).isEqualTo(SubscriberQueue.Offer.FULL);
        assertThat(q.events()).isEqualTo(spec.capacity());
        assertThat(q.bytes()).isEqualTo(spec.capacity());

        assertThat(q.poll()).isSameAs(offered.get(0));
        assertThat(q.offer(null, refused, false)).isNotEqualTo(SubscriberQueue.Offer.FULL);

        List<Delivery> rest = drain(q);
        assertThat(rest).doesNotHaveAnyElementsOfTypes(GapNotice.class); // the refused gap was not queued
        assertThat(rest).last().isSameAs(refused);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void offer_emptyQueue_acceptsABatchLargerThanBothLimits(Spec spec) {
        SubscriberQueue q = new Counted(limits(spec)).queue;
        int count = Math.min(spec.events(), 10_000) + 5;
        byte[][] p = new byte[count][];
        for (int i = 0; i < count; i++) {
            p[i] = new byte[(int) Math.max(1, spec.units() / count + 1)];
        }
        EventBatch huge = new EventBatch(0, 0, p, 0);
        assertThat(huge.eventCount()).isGreaterThan(spec.events());
        assertThat(huge.payloadBytes()).isGreaterThan(spec.units());

        assertThat(q.offer(null, huge, false)).isEqualTo(SubscriberQueue.Offer.ADDED_WAKE);
        assertThat(q.offer(null, batch(count, 1), false)).isEqualTo(SubscriberQueue.Offer.FULL);
        assertThat(q.poll()).isSameAs(huge);
        assertThat(q.offer(null, batch(count, 1), false)).isEqualTo(SubscriberQueue.Offer.ADDED_WAKE);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void offer_onlyGapsQueued_countsAsEmptyForTheLimits(Spec spec) {
        SubscriberQueue q = new Counted(limits(spec)).queue;
        assertThat(q.offerGap(gap(0, 9))).isEqualTo(SubscriberQueue.Offer.ADDED_WAKE);
        EventBatch big = batch(10, spec.capacity() + 3);

        assertThat(q.offer(null, big, false)).isEqualTo(SubscriberQueue.Offer.ADDED); // not empty: no new wake

        assertThat(drain(q)).containsExactly(gap(0, 9), big);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void offerGap_wakesOnlyOnEmptyToNonEmpty_likeABatch(Spec spec) {
        SubscriberQueue q = new Counted(limits(spec)).queue;
        assertThat(q.offer(null, batch(0, 1), false)).isEqualTo(SubscriberQueue.Offer.ADDED_WAKE);
        assertThat(q.offerGap(gap(1, 1))).isEqualTo(SubscriberQueue.Offer.ADDED);
        drain(q);
        assertThat(q.offerGap(gap(2, 2))).isEqualTo(SubscriberQueue.Offer.ADDED_WAKE);
        drain(q);
        assertThat(q.offer(gap(3, 3), batch(4, 1), false)).isEqualTo(SubscriberQueue.Offer.ADDED_WAKE);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void clear_thenTheQueueAcceptsAgain_aSubscriptionCanResume(Spec spec) {
        Counted c = new Counted(limits(spec));
        fill(c.queue, spec.capacity());
        c.queue.offer(null, batch(spec.capacity(), 1), true);

        c.queue.clear();

        assertThat(c.queue.events()).isZero();
        assertThat(c.queue.bytes()).isZero();
        assertThat(c.queue.offer(null, batch(0, 1), false)).isEqualTo(SubscriberQueue.Offer.ADDED_WAKE);
        assertThat(c.signals).hasValue(0);
    }

    // ------------------------------------------------------------------ drop_old eviction

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void evictOldest_repeatedly_keepsOneGapAtTheHeadCoveringEverythingEvicted(Spec spec) {
        SubscriberQueue q = new Counted(limits(spec)).queue;
        int cap = spec.capacity();
        fill(q, cap);

        int rounds = 5;
        long evicted = 0;
        for (int k = 0; k < rounds; k++) {
            evicted += q.evictOldestAndOffer(null, batch(cap + k, 1), 0).evicted();
        }

        assertThat(evicted).isEqualTo(rounds);
        assertThat(q.events()).isEqualTo(cap);
        assertThat(q.bytes()).isEqualTo(cap);
        List<Delivery> expected = new ArrayList<>();
        expected.add(gap(0, rounds - 1));
        for (int i = rounds; i < rounds + cap; i++) {
            expected.add(batch(i, 1));
        }
        assertThat(Coverage.render(drain(q))).isEqualTo(Coverage.render(expected));
    }

    /**
     * The writer found the queue full, then the consumer drained it and went to sleep before the
     * writer's eviction call: the eviction finds an empty queue and must ask for a wake-up.
     */
    @Test
    void evictOldest_queueDrainedSinceItWasFoundFull_asksToWakeTheConsumer() {
        SubscriberQueue q = new Counted(new QueueLimits(2, 1 << 20)).queue;
        fill(q, 2);
        assertThat(q.offer(null, batch(2, 1), false)).isEqualTo(SubscriberQueue.Offer.FULL);
        drain(q); // the consumer empties the queue and polls null

        SubscriberQueue.Eviction e = q.evictOldestAndOffer(null, batch(2, 1), 0);

        assertThat(e.evicted()).isZero();
        assertThat(e.wake()).isTrue();
        assertThat(Coverage.render(drain(q))).containsExactly("batch 2..2");
    }

    @Test
    void evictOldest_onlyGapsQueued_noWakeNeeded() {
        SubscriberQueue q = new Counted(new QueueLimits(1, 1 << 20)).queue;
        q.offerGap(gap(0, 0));

        SubscriberQueue.Eviction e = q.evictOldestAndOffer(null, batch(1, 1), 0);

        assertThat(e.wake()).isFalse();
        assertThat(Coverage.render(drain(q))).containsExactly("gap 0..0 queue_overflow", "batch 1..1");
    }

    @Test
    void evictOldest_mergesWithAGapLeftAtTheHead() {
        SubscriberQueue q = new Counted(new QueueLimits(3, 1 << 20)).queue;
        q.offer(null, batch(0, 2), false);
        q.offer(gap(2, 4), batch(5, 1), false);

        SubscriberQueue.Eviction e = q.evictOldestAndOffer(null, batch(6, 1), 0);
        long evicted = e.evicted();
        assertThat(e.wake()).as("queue was not empty").isFalse();

        assertThat(evicted).isEqualTo(2);
        assertThat(Coverage.render(drain(q))).containsExactly("gap 0..4 queue_overflow", "batch 5..5", "batch 6..6");
    }

    @Test
    void evictOldest_batchLargerThanTheQueue_evictsEverything() {
        SubscriberQueue q = new Counted(new QueueLimits(3, 1 << 20)).queue;
        fill(q, 3);

        SubscriberQueue.Eviction e = q.evictOldestAndOffer(null, batch(3, 10), 0);
        long evicted = e.evicted();
        assertThat(e.wake()).as("queue was not empty").isFalse();

        assertThat(evicted).isEqualTo(3);
        assertThat(q.events()).isEqualTo(10);
        assertThat(Coverage.render(drain(q))).containsExactly("gap 0..2 queue_overflow", "batch 3..12");
    }

    @Test
    void evictOldest_withAPendingGap_queuesItJustBeforeTheBatch() {
        SubscriberQueue q = new Counted(new QueueLimits(2, 1 << 20)).queue;
        fill(q, 2);

        SubscriberQueue.Eviction e = q.evictOldestAndOffer(gap(2, 4), batch(5, 1), 0);
        long evicted = e.evicted();
        assertThat(e.wake()).as("queue was not empty").isFalse();

        assertThat(evicted).isEqualTo(1);
        assertThat(Coverage.render(drain(q))).containsExactly(
                "gap 0..0 queue_overflow", "batch 1..1", "gap 2..4 queue_overflow", "batch 5..5");
    }

    @Test
    void evictOldest_byteBound_evictsUntilTheBytesFit() {
        SubscriberQueue q = new Counted(new QueueLimits(100, 10)).queue;
        q.offer(null, sizedBatch(0, 4), false);
        q.offer(null, sizedBatch(1, 4), false);
        q.offer(null, sizedBatch(2, 2), false);

        SubscriberQueue.Eviction e = q.evictOldestAndOffer(null, sizedBatch(3, 7), 0);
        long evicted = e.evicted();
        assertThat(e.wake()).as("queue was not empty").isFalse();

        assertThat(evicted).isEqualTo(2);
        assertThat(q.bytes()).isEqualTo(9);
        assertThat(Coverage.render(drain(q))).containsExactly("gap 0..1 queue_overflow", "batch 2..2", "batch 3..3");
    }

    // ------------------------------------------------------------------ drop_new: extending a queued gap

    @Test
    void extendTailGap_adjacentGapOfTheSameReasonStillQueued_isExtendedInPlace() {
        SubscriberQueue q = new Counted(new QueueLimits(4, 1 << 20)).queue;
        q.offer(null, batch(0, 1), false);
        q.offerGap(gap(1, 3));

        assertThat(q.extendTailGap(4, 6, GapNotice.Reason.QUEUE_OVERFLOW)).isTrue();
        assertThat(q.extendTailGap(7, 7, GapNotice.Reason.QUEUE_OVERFLOW)).isTrue();

        assertThat(Coverage.render(drain(q))).containsExactly("batch 0..0", "gap 1..7 queue_overflow");
        assertThat(q.events()).isZero();
    }

    @Test
    void extendTailGap_notAdjacent_otherReason_batchAtTail_emptyOrAlreadyTaken_leavesTheQueueAlone() {
        SubscriberQueue q = new Counted(new QueueLimits(4, 1 << 20)).queue;
        assertThat(q.extendTailGap(0, 1, GapNotice.Reason.QUEUE_OVERFLOW)).as("empty").isFalse();

        q.offerGap(gap(0, 1));
        assertThat(q.extendTailGap(3, 4, GapNotice.Reason.QUEUE_OVERFLOW)).as("not adjacent").isFalse();
        assertThat(q.extendTailGap(2, 4, GapNotice.Reason.RETENTION)).as("other reason").isFalse();
        q.offer(null, batch(2, 1), false);
        assertThat(q.extendTailGap(3, 4, GapNotice.Reason.QUEUE_OVERFLOW)).as("batch at the tail").isFalse();

        assertThat(Coverage.render(drain(q))).containsExactly("gap 0..1 queue_overflow", "batch 2..2");
        q.offerGap(gap(3, 3));
        assertThat(q.poll()).isEqualTo(gap(3, 3));
        assertThat(q.extendTailGap(4, 4, GapNotice.Reason.QUEUE_OVERFLOW)).as("consumer took it").isFalse();
    }

    // ------------------------------------------------------------------ two threads

    /**
     * The suite's two-thread test with what only this queue carries: gap notices between batches of one to
     * three events. Every offset is covered once, in order, with the payload bytes written before the offer
     * visible to the consumer.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void producerAndConsumerThreads_withGapNotices_everyOffsetCoveredOnceInOrder(Spec spec) throws Exception {
        Semaphore space = new Semaphore(0);
        Semaphore wake = new Semaphore(0);
        SubscriberQueue q = new SubscriberQueue(limits(spec), space::release);
        long total = 20_000;

        CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
            Random random = new Random(spec.events() * 31L + spec.units());
            long offset = 0;
            while (offset < total) {
                GapNotice g = null;
                if (random.nextInt(10) == 0) {
                    long to = Math.min(total - 1, offset + random.nextInt(3));
                    g = gap(offset, to);
                    offset = to + 1;
                    if (offset == total) {
                        if (q.offerGap(g) == SubscriberQueue.Offer.ADDED_WAKE) {
                            wake.release();
                        }
                        break;
                    }
                }
                int n = (int) Math.min(total - offset, 1 + random.nextInt(3));
                EventBatch b = batch(offset, n);
                SubscriberQueue.Offer o;
                while ((o = q.offer(g, b, true)) == SubscriberQueue.Offer.FULL) {
                    acquire(space);
                }
                if (o == SubscriberQueue.Offer.ADDED_WAKE) {
                    wake.release();
                }
                offset += n;
            }
        });

        List<Delivery> got = new ArrayList<>();
        long covered = 0;
        while (covered < total) {
            Delivery d = q.poll();
            if (d == null) {
                acquire(wake);
                continue;
            }
            got.add(d);
            covered = Coverage.walk(covered, List.of(d));
            if (d instanceof EventBatch b) {
                for (int i = 0; i < b.eventCount(); i++) {
                    assertThat(b.payload(i)[0]).isEqualTo((byte) (b.baseOffset() + i));
                }
            }
        }
        Await.get(producer);
        assertThat(Coverage.walk(0, got)).isEqualTo(total);
        assertThat(q.poll()).isNull();
    }

    private static void acquire(Semaphore s) {
        try {
            if (!s.tryAcquire(Await.LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("no signal within " + Await.LIMIT + " (lost wake-up)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
