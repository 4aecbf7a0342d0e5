package dev.felix.core.stream;

import static dev.felix.core.testing.Fixture.ROOMY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.Checkpoint;
import dev.felix.core.CoreMetrics;
import dev.felix.core.ErrorCode;
import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;
import dev.felix.core.testing.Ack;
import dev.felix.core.testing.AckListener;
import dev.felix.core.testing.Await;
import dev.felix.core.testing.Collector;
import dev.felix.core.testing.Coverage;
import dev.felix.core.testing.Fixture;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Subscriber queue policies, driven by a consumer that stalls (does not poll) and then drains, next to
 * a healthy subscriber that must not notice anything. Publishes go one at a time so each is one batch
 * and the expected view can be computed by a small model of the queue.
 */
class SubscriberPolicyTest {

    private Fixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    static Stream<Arguments> limitsAndBatchSizes() {
        List<Arguments> out = new ArrayList<>();
        for (int limit : new int[] {1, 2, 4, 7}) {
            for (int batch : new int[] {1, 3}) {
                out.add(Arguments.of(limit, batch));
            }
        }
        return out.stream();
    }

    static String[] payloads(int batchIndex, int size) {
        String[] p = new String[size];
        for (int k = 0; k < size; k++) {
            p[k] = "b" + batchIndex + "." + k;
        }
        return p;
    }

    private long dropped() {
        return fx.broker.metrics().dropped(Checkpoint.SUBSCRIBER_QUEUE).sum();
    }

    // ------------------------------------------------------------------ drop_new

    @ParameterizedTest(name = "limit {0} events, batches of {1}")
    @MethodSource("limitsAndBatchSizes")
    void dropNew_fullQueue_skipsNewerBatches_andReportsExactlyThatRangeOnce(int limit, int batch) {
        fx = new Fixture(Fixture.config());
        Shard shard = fx.shard("drop-new");
        Collector stalled = fx.manual(shard, StartPosition.LATEST, QueuePolicy.DROP_NEW, new QueueLimits(limit, 1 << 20));
        Collector healthy = fx.draining(shard, StartPosition.LATEST, QueuePolicy.DROP_NEW, ROOMY);
        int batches = 10;

        // Model: nobody polls, so the queue only grows; a batch is taken if the queue is empty or it fits.
        List<String> expected = new ArrayList<>();
        long queued = 0;
        long firstDropped = -1;
        for (int i = 0; i < batches; i++) {
            Ack ack = Fixture.publish(shard, payloads(i, batch));
            if (queued == 0 || queued + batch <= limit) {
                queued += batch;
                expected.add("batch " + ack.firstOffset() + ".." + (ack.endOffset() - 1));
            } else if (firstDropped < 0) {
                firstDropped = ack.firstOffset();
            }
        }
        long tail = (long) batches * batch;
        long missed = firstDropped < 0 ? 0 : tail - firstDropped;
        if (missed > 0) {
            expected.add("gap " + firstDropped + ".." + (tail - 1) + " queue_overflow");
        }

        assertThat(dropped()).isEqualTo(missed);
        assertThat(stalled.subscription.queuedEvents()).isEqualTo(queued);

        // Nothing more is published: the gap still arrives once the consumer has drained.
        stalled.awaitCoveredTo(tail);
        assertThat(Coverage.render(stalled.deliveries())).containsExactlyElementsOf(expected);

        Ack after = Fixture.publish(shard, "after");
        expected.add("batch " + after.firstOffset() + ".." + after.firstOffset());
        stalled.awaitCoveredTo(tail + 1);
        assertThat(Coverage.render(stalled.deliveries())).containsExactlyElementsOf(expected);
        assertThat(stalled.gaps()).hasSize(missed > 0 ? 1 : 0);
        assertThat(fx.broker.metrics().gapNotices.sum()).isEqualTo(missed > 0 ? 1 : 0);

        healthy.awaitCoveredTo(tail + 1);
        assertThat(healthy.gaps()).isEmpty();
        assertThat(healthy.events()).hasSize((int) tail + 1);
        assertThat(dropped()).as("draining later drops nothing more").isEqualTo(missed);
    }

    @Test
    void dropNew_pendingGap_isQueuedJustBeforeTheNextBatchThatFits() {
        fx = new Fixture(Fixture.config());
        Shard shard = fx.shard("drop-new-next");
        Collector stalled = fx.manual(shard, StartPosition.LATEST, QueuePolicy.DROP_NEW, new QueueLimits(4, 1 << 20));
        Fixture.publishEach(shard, "e", 0, 10); // 0..3 queued, 4..9 dropped

        assertThat(stalled.poll(1)).isEqualTo(1); // 3 left: still above half, no signal yet
        // 10 fits the freed slot and carries the pending gap 4..9 in front of it; 11 is dropped again.
        Fixture.publishEach(shard, "e", 10, 2);

        stalled.awaitCoveredTo(12);

        assertThat(Coverage.render(stalled.deliveries())).containsExactly(
                "batch 0..0", "batch 1..1", "batch 2..2", "batch 3..3",
                "gap 4..9 queue_overflow", "batch 10..10", "gap 11..11 queue_overflow");
        assertThat(dropped()).isEqualTo(7);
    }

    /**
     * The queue is at half (so the space signal fires at once) but each new batch is larger than the
     * room left: one skipped run must still reach the consumer as one gap, not one notice per batch.
     */
    @Test
    void dropNew_batchesLargerThanTheRoomLeft_oneSkippedRunIsOneGap() {
        fx = new Fixture(Fixture.config());
        Shard shard = fx.shard("drop-new-run");
        Collector stalled = fx.manual(shard, StartPosition.LATEST, QueuePolicy.DROP_NEW, new QueueLimits(5, 1 << 20));
        Fixture.publishEach(shard, "e", 0, 2); // 2 of 5 queued: at half
        for (int i = 0; i < 3; i++) {
            Fixture.publish(shard, payloads(i, 4)); // 2 + 4 > 5: dropped
        }

        stalled.awaitCoveredTo(14);
        Fixture.publish(shard, "after");
        stalled.awaitCoveredTo(15);

        assertThat(Coverage.render(stalled.deliveries())).containsExactly(
                "batch 0..0", "batch 1..1", "gap 2..13 queue_overflow", "batch 14..14");
        assertThat(dropped()).isEqualTo(12);
    }

    @Test
    void dropNew_isTheEphemeralDefault_whenTheSubscriptionNamesNoPolicy() {
        fx = new Fixture(Fixture.config());
        Shard shard = fx.shard("default-policy");
        Collector stalled = fx.manual(shard, StartPosition.LATEST, null, new QueueLimits(2, 1 << 20));

        Fixture.publishEach(shard, "e", 0, 5);
        stalled.awaitCoveredTo(5);

        assertThat(Coverage.render(stalled.deliveries()))
                .containsExactly("batch 0..0", "batch 1..1", "gap 2..4 queue_overflow");
    }

    // ------------------------------------------------------------------ drop_old

    @ParameterizedTest(name = "limit {0} events, batches of {1}")
    @MethodSource("limitsAndBatchSizes")
    void dropOld_fullQueue_evictsOldest_gapAtTheHeadThenRemainingThenNewest(int limit, int batch) {
        fx = new Fixture(Fixture.config());
        Shard shard = fx.shard("drop-old");
        Collector stalled = fx.manual(shard, StartPosition.LATEST, QueuePolicy.DROP_OLD, new QueueLimits(limit, 1 << 20));
        Collector healthy = fx.draining(shard, StartPosition.LATEST, QueuePolicy.DROP_OLD, ROOMY);
        int batches = 10;

        // Model: evict from the head until the new batch fits or the queue is empty.
        ArrayDeque<long[]> queue = new ArrayDeque<>();
        long queued = 0;
        long evicted = 0;
        for (int i = 0; i < batches; i++) {
            Ack ack = Fixture.publish(shard, payloads(i, batch));
            while (!queue.isEmpty() && queued + batch > limit) {
                long[] head = queue.pollFirst();
                queued -= head[1] - head[0];
                evicted += head[1] - head[0];
            }
            queue.addLast(new long[] {ack.firstOffset(), ack.endOffset()});
            queued += batch;
        }
        long tail = (long) batches * batch;
        List<String> expected = new ArrayList<>();
        if (evicted > 0) {
            expected.add("gap 0.." + (evicted - 1) + " queue_overflow");
        }
        for (long[] b : queue) {
            expected.add("batch " + b[0] + ".." + (b[1] - 1));
        }

        assertThat(dropped()).isEqualTo(evicted);
        assertThat(stalled.subscription.queuedEvents()).isEqualTo(queued);

        assertThat(stalled.poll(1)).isEqualTo(1);
        assertThat(Coverage.render(stalled.deliveries()))
                .as("the head of the queue").containsExactly(expected.get(0));
        stalled.awaitCoveredTo(tail);
        Ack after = Fixture.publish(shard, "after");
        expected.add("batch " + after.firstOffset() + ".." + after.firstOffset());
        stalled.awaitCoveredTo(tail + 1);

        assertThat(Coverage.render(stalled.deliveries())).containsExactlyElementsOf(expected);
        healthy.awaitCoveredTo(tail + 1);
        assertThat(healthy.gaps()).isEmpty();
        assertThat(healthy.events()).hasSize((int) tail + 1);
        assertThat(dropped()).isEqualTo(evicted);
    }

    @Test
    void dropOld_tenSingleEventsIntoFour_keepsTheNewestFour() {
        fx = new Fixture(Fixture.config());
        Shard shard = fx.shard("drop-old-simple");
        Collector stalled = fx.manual(shard, StartPosition.LATEST, QueuePolicy.DROP_OLD, new QueueLimits(4, 1 << 20));

        Fixture.publishEach(shard, "e", 0, 10);
        stalled.awaitCoveredTo(10);

        assertThat(Coverage.render(stalled.deliveries())).containsExactly(
                "gap 0..5 queue_overflow", "batch 6..6", "batch 7..7", "batch 8..8", "batch 9..9");
        assertThat(stalled.payloads()).containsExactly("e6", "e7", "e8", "e9");
        assertThat(dropped()).isEqualTo(6);
    }

    // ------------------------------------------------------------------ block

    /**
     * A full {@code block} subscriber holds the writer: the batch it blocks on reached everyone else
     * and was acknowledged, later publishes wait in the writer queue (no offsets, no acknowledgements),
     * the writer queue fills and refuses, and {@code onWritable} fires once after the consumer drains.
     * Nothing is lost anywhere.
     */
    @Test
    void block_fullSubscriber_holdsTheWriter_untilItDrains_andNothingIsLost() {
        fx = new Fixture(Fixture.config().withWriterQueue(new QueueLimits(4, 1 << 20)));
        Shard shard = fx.shard("block");
        CoreMetrics metrics = fx.broker.metrics();
        Collector slow = fx.manual(shard, StartPosition.LATEST, QueuePolicy.BLOCK, new QueueLimits(2, 1 << 20));
        Collector fast = fx.draining(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY);

        Fixture.publish(shard, "e0");
        Fixture.publish(shard, "e1"); // slow's queue is now full
        assertThat(Fixture.publish(shard, "e2")).isEqualTo(new Ack(0, 2, 1)); // accepted, but slow blocks on it
        fast.awaitCoveredTo(3);
        assertThat(metrics.writerBlocked.sum()).isEqualTo(1);

        List<AckListener> waiting = new ArrayList<>();
        for (int i = 3; i <= 6; i++) {
            waiting.add(Fixture.publishAsync(shard, "e" + i));
        }
        AckListener refused = new AckListener();
        assertThat(shard.tryPublish(Fixture.request(refused, "e7"))).as("writer queue full").isFalse();
        assertThat(metrics.blocked(Checkpoint.WRITER_QUEUE).sum()).isEqualTo(1);
        AtomicInteger writable = new AtomicInteger();
        shard.onWritable(writable::incrementAndGet);

        Fixture.writerBarrier(shard);
        assertThat(waiting).noneMatch(AckListener::isDone);
        assertThat(refused.calls()).isZero();
        assertThat(writable).hasValue(0);
        assertThat(shard.info().nextOffset()).isEqualTo(3);
        assertThat(shard.info().writerQueued()).isEqualTo(4);
        assertThat(fast.coveredTo()).isEqualTo(3);
        assertThat(slow.subscription.queuedEvents()).isEqualTo(2);

        slow.startDraining();

        Await.until("onWritable fired", () -> writable.get() == 1);
        for (int i = 0; i < waiting.size(); i++) {
            assertThat(Await.get(waiting.get(i).future).firstOffset()).isEqualTo(3 + i);
        }
        assertThat(Fixture.publish(shard, "e7").firstOffset()).isEqualTo(7);
        slow.awaitCoveredTo(8);
        fast.awaitCoveredTo(8);
        Fixture.writerBarrier(shard);
        assertThat(writable).as("onWritable is one-shot").hasValue(1);
        List<String> all = List.of("e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7");
        assertThat(slow.payloads()).containsExactlyElementsOf(all);
        assertThat(fast.payloads()).containsExactlyElementsOf(all);
        assertThat(slow.gaps()).isEmpty();
        assertThat(fast.gaps()).isEmpty();
        assertThat(dropped()).isZero();
    }

    @Test
    void block_writerQueue_emptyQueueTakesAPublishLargerThanItsLimit() {
        fx = new Fixture(Fixture.config().withWriterQueue(new QueueLimits(2, 4)));
        Shard shard = fx.shard("oversized-publish");

        assertThat(Fixture.publish(shard, "aaaa", "bbbb", "cccc")).isEqualTo(new Ack(0, 0, 3));
    }

    @Test
    void onWritable_writerQueueHasRoom_runsAtOnce() {
        fx = new Fixture(Fixture.config());
        Shard shard = fx.shard("writable");
        AtomicInteger calls = new AtomicInteger();

        shard.onWritable(calls::incrementAndGet);

        assertThat(calls).hasValue(1);
    }

    // ------------------------------------------------------------------ catch_up

    @Test
    void catchUp_onAnEphemeralShard_isABadRequest() {
        fx = new Fixture(Fixture.config());
        Shard shard = fx.shard("catch-up");

        var failure = Await.failure(shard.subscribe(new SubscribeRequest(StartPosition.LATEST, QueuePolicy.CATCH_UP, null, 0)));

        assertThat(failure.code()).isEqualTo(ErrorCode.BAD_REQUEST);
        assertThat(failure.getMessage()).contains("catch_up");
        assertThat(shard.info().subscribers()).isZero();
    }
}
