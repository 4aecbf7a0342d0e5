package dev.felix.core.stream;

import static dev.felix.core.testing.Fixture.ROOMY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;
import dev.felix.core.testing.Ack;
import dev.felix.core.testing.AckListener;
import dev.felix.core.testing.Await;
import dev.felix.core.testing.Collector;
import dev.felix.core.testing.Fixture;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Offsets and fanout of a shard: contiguous offsets from 0 per shard, one exact acknowledgement per
 * publish, a single total order seen identically by every subscriber under concurrent publishers, and
 * the very same batch instance handed to every live subscriber.
 */
class ShardOffsetsTest {

    private Fixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void offsets_startAtZeroAndStayContiguous_independentlyPerShard() {
        fx = new Fixture(Fixture.config());
        Stream stream = fx.stream("offsets", 3);

        for (int s = 0; s < 3; s++) {
            Shard shard = stream.shard(s);
            assertThat(Fixture.publish(shard, "a")).isEqualTo(new Ack(s, 0, 1));
            assertThat(Fixture.publish(shard, "b", "c", "d")).isEqualTo(new Ack(s, 1, 3));
            assertThat(Fixture.publish(shard, "e", "f")).isEqualTo(new Ack(s, 4, 2));
        }

        for (int s = 0; s < 3; s++) {
            ShardInfo info = stream.shard(s).info();
            assertThat(info.nextOffset()).isEqualTo(6);
            assertThat(info.oldestOffset()).isZero();
            assertThat(info.shard()).isEqualTo(s);
        }
        assertThat(fx.broker.metrics().publishedEvents.sum()).isEqualTo(18);
    }

    @Test
    void publishListener_queuedPublishesMergedIntoOneBatch_eachToldItsOwnRangeExactlyOnce() {
        fx = new Fixture(Fixture.config());
        Shard shard = fx.shard("acks");
        // A block subscriber with a full queue holds the writer, so the next publishes pile up
        // in the writer queue and are merged into one batch when it is released.
        Collector holder = fx.manual(shard, StartPosition.LATEST, QueuePolicy.BLOCK, new QueueLimits(1, 1 << 20));
        Collector watcher = fx.draining(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY);
        Fixture.publish(shard, "p0");
        Fixture.publish(shard, "p1"); // blocks on holder's full queue
        List<AckListener> acks = new ArrayList<>();
        int[] sizes = {2, 1, 3, 1};
        int n = 0;
        for (int size : sizes) {
            String[] payloads = new String[size];
            for (int i = 0; i < size; i++) {
                payloads[i] = "m" + n++;
            }
            acks.add(Fixture.publishAsync(shard, payloads));
        }

        holder.startDraining();
        watcher.awaitCoveredTo(2 + n);

        long expectedFirst = 2;
        for (int i = 0; i < sizes.length; i++) {
            assertThat(Await.get(acks.get(i).future)).isEqualTo(new Ack(0, expectedFirst, sizes[i]));
            expectedFirst += sizes[i];
        }
        Fixture.writerBarrier(shard);
        for (AckListener a : acks) {
            assertThat(a.calls()).isEqualTo(1);
        }
        assertThat(watcher.batches()).as("the four queued publishes became one batch").hasSize(3);
        assertThat(watcher.payloads()).containsExactly("p0", "p1", "m0", "m1", "m2", "m3", "m4", "m5", "m6");
    }

    /**
     * Several publishers at full speed through a small writer queue (so {@code tryPublish} refuses and
     * {@code onWritable} is exercised): every event gets exactly one offset, the acknowledged ranges tile
     * {@code [0, total)}, each publisher's events keep its order, and three subscribers see the very same
     * sequence, which matches what the acknowledgements said.
     */
    @Test
    void concurrentPublishers_everyEventOnceInOneTotalOrder_sameForEverySubscriber() throws Exception {
        fx = new Fixture(Fixture.config().withWriterQueue(new QueueLimits(64, 1 << 20)));
        Shard shard = fx.shard("concurrent");
        List<Collector> subscribers = List.of(
                fx.draining(shard, StartPosition.LATEST, QueuePolicy.BLOCK, new QueueLimits(128, 1 << 20)),
                fx.draining(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY),
                fx.draining(shard, StartPosition.LATEST, QueuePolicy.DROP_NEW, ROOMY));
        int publishers = 4;
        int publishesEach = 1_500;
        CountDownLatch start = new CountDownLatch(1);
        List<List<AckListener>> acks = new ArrayList<>();
        List<List<String[]>> sent = new ArrayList<>();
        List<CompletableFuture<Void>> running = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(publishers); // one thread each: really concurrent
        for (int p = 0; p < publishers; p++) {
            List<AckListener> mine = new ArrayList<>();
            List<String[]> mineSent = new ArrayList<>();
            acks.add(mine);
            sent.add(mineSent);
            int id = p;
            running.add(CompletableFuture.runAsync(() -> {
                Random random = new Random(id);
                await(start);
                int seq = 0;
                for (int i = 0; i < publishesEach; i++) {
                    String[] payloads = new String[1 + random.nextInt(4)];
                    for (int k = 0; k < payloads.length; k++) {
                        payloads[k] = "p" + id + "-" + seq++;
                    }
                    AckListener l = new AckListener();
                    mine.add(l);
                    mineSent.add(payloads);
                    Fixture.publishWithBackpressure(shard, Fixture.request(l, payloads));
                }
            }, threads));
        }
        start.countDown();
        try {
            for (CompletableFuture<Void> r : running) {
                Await.get(r);
            }
        } finally {
            threads.shutdownNow();
        }

        Map<Long, String> expected = new HashMap<>();
        List<Ack> all = new ArrayList<>();
        for (int p = 0; p < publishers; p++) {
            long previousEnd = -1;
            for (int i = 0; i < publishesEach; i++) {
                Ack ack = Await.get(acks.get(p).get(i).future);
                String[] payloads = sent.get(p).get(i);
                assertThat(ack.count()).isEqualTo(payloads.length);
                assertThat(ack.firstOffset()).as("publisher %d keeps its order", p).isGreaterThanOrEqualTo(previousEnd);
                previousEnd = ack.endOffset();
                for (int k = 0; k < payloads.length; k++) {
                    assertThat(expected.put(ack.firstOffset() + k, payloads[k])).as("offset given twice").isNull();
                }
                all.add(ack);
            }
        }
        all.sort((a, b) -> Long.compare(a.firstOffset(), b.firstOffset()));
        long next = 0;
        for (Ack a : all) {
            assertThat(a.firstOffset()).as("acknowledged ranges tile the offsets").isEqualTo(next);
            next = a.endOffset();
        }
        long total = next;
        assertThat(shard.info().nextOffset()).isEqualTo(total);

        List<String> reference = null;
        for (Collector c : subscribers) {
            c.awaitCoveredTo(total);
            assertThat(c.gaps()).isEmpty();
            List<String> events = c.events();
            assertThat(events).hasSize((int) total);
            for (String e : events) {
                int eq = e.indexOf('=');
                assertThat(e.substring(eq + 1)).isEqualTo(expected.get(Long.parseLong(e.substring(0, eq))));
            }
            if (reference == null) {
                reference = events;
            } else {
                assertThat(events).isEqualTo(reference);
            }
        }
        Fixture.writerBarrier(shard);
        for (List<AckListener> mine : acks) {
            for (AckListener l : mine) {
                assertThat(l.calls()).isEqualTo(1);
            }
        }
        assertThat(fx.broker.metrics().dropped(dev.felix.core.Checkpoint.SUBSCRIBER_QUEUE).sum()).isZero();
    }

    @Test
    void info_whenAPublishIsAcknowledged_alreadyShowsItsOffsets() {
        fx = new Fixture(Fixture.config().withRing(4, 1 << 20));
        Shard shard = fx.shard("info");
        List<long[]> seenInAck = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            shard.tryPublish(Fixture.request(new PublishListener() {
                @Override
                public void accepted(int s, long firstOffset, int count) {
                    ShardInfo info = shard.info(); // on the writer, at the moment of the ack
                    seenInAck.add(new long[] {firstOffset + count, info.nextOffset(), info.oldestOffset()});
                    done.complete(null);
                }

                @Override
                public void failed(dev.felix.core.FelixError error) {
                    done.completeExceptionally(error.toException());
                }
            }, "e" + i));
            Await.get(done);
        }

        for (int i = 0; i < seenInAck.size(); i++) {
            long[] seen = seenInAck.get(i);
            assertThat(seen[1]).as("next offset seen in ack %d", i).isEqualTo(seen[0]);
            assertThat(seen[2]).as("oldest offset seen in ack %d", i).isEqualTo(Math.max(0, seen[0] - 4));
        }
    }

    @Test
    void liveFanout_everySubscriberReceivesTheSameBatchInstance() {
        fx = new Fixture(Fixture.config());
        Shard shard = fx.shard("identity");
        List<Collector> subscribers = List.of(
                fx.manual(shard, StartPosition.LATEST, QueuePolicy.DROP_NEW, ROOMY),
                fx.manual(shard, StartPosition.LATEST, QueuePolicy.DROP_OLD, ROOMY),
                fx.manual(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY));

        for (int i = 0; i < 5; i++) {
            Fixture.publish(shard, "x" + i, "y" + i);
        }

        for (Collector c : subscribers) {
            c.awaitCoveredTo(10);
        }
        List<EventBatch> first = subscribers.get(0).batches();
        assertThat(first).hasSize(5);
        for (Collector c : subscribers) {
            List<EventBatch> mine = c.batches();
            for (int i = 0; i < first.size(); i++) {
                assertThat(mine.get(i)).isSameAs(first.get(i));
            }
        }
        assertThat(fx.broker.metrics().batches.sum()).isEqualTo(5);
        assertThat(fx.broker.metrics().fannedOutEvents.sum()).isEqualTo(30);
    }

    @Test
    void subscriptionListener_isToldOncePerEmptyToNonEmpty() {
        fx = new Fixture(Fixture.config());
        Shard shard = fx.shard("wake");
        Collector c = fx.manual(shard, StartPosition.LATEST, QueuePolicy.DROP_NEW, ROOMY);

        Fixture.publish(shard, "a");
        Fixture.publish(shard, "b");
        Fixture.publish(shard, "c");

        assertThat(c.readySignals()).isEqualTo(1);
        c.awaitCoveredTo(3);
        Fixture.publish(shard, "d");
        assertThat(c.readySignals()).isEqualTo(2);
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(Await.LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("latch");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
