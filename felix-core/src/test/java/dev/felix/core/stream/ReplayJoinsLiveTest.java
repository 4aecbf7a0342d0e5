package dev.felix.core.stream;

import static dev.felix.core.testing.Fixture.ROOMY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.Checkpoint;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;
import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;
import dev.felix.core.testing.Await;
import dev.felix.core.testing.Collector;
import dev.felix.core.testing.Fixture;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;

/**
 * Replay joins live delivery while a publisher runs at full speed: subscriptions start at the
 * earliest offset, in the middle, at the tail and at latest, at random moments during the load, and
 * each must see every offset from its start to the final tail exactly once. Payload {@code i} is
 * published at offset {@code i} (one publisher), so content is checked too.
 */
class ReplayJoinsLiveTest {

    /** Below the default ring (65,536 events), so the roomy case never loses anything to retention. */
    private static final int TOTAL = 50_000;

    private Fixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    /** Publishes payloads "0", "1", ... in publishes of 1–8 events, as fast as the shard takes them. */
    private static CompletableFuture<Void> publisher(Shard shard, long seed) {
        return CompletableFuture.runAsync(() -> {
            Random random = new Random(seed);
            int next = 0;
            while (next < TOTAL) {
                int n = Math.min(TOTAL - next, 1 + random.nextInt(8));
                byte[][] p = new byte[n][];
                for (int k = 0; k < n; k++) {
                    p[k] = Integer.toString(next++).getBytes(StandardCharsets.UTF_8);
                }
                Fixture.publishWithBackpressure(shard, PublishRequest.of(p, null));
            }
        });
    }

    private static void checkPayloads(Collector c) {
        for (EventBatch b : c.batches()) {
            for (int i = 0; i < b.eventCount(); i++) {
                String payload = new String(b.payload(i), StandardCharsets.UTF_8);
                if (!payload.equals(Long.toString(b.baseOffset() + i))) {
                    throw new AssertionError("offset " + (b.baseOffset() + i) + " carries payload " + payload);
                }
            }
        }
    }

    private static long tail(Shard shard) {
        return shard.info().nextOffset();
    }

    /** Waits until the shard has taken at least {@code offset} events (or the load is over). */
    private static void awaitTail(Shard shard, long offset, CompletableFuture<Void> load) {
        Await.until("tail reaches " + offset, () -> tail(shard) >= offset || load.isDone());
    }

    @RepeatedTest(3)
    void replayDuringLoad_roomyRing_everySubscriberSeesAContiguousRunToTheTail(org.junit.jupiter.api.RepetitionInfo rep) {
        fx = new Fixture(Fixture.config());
        Shard shard = fx.shard("replay-" + rep.getCurrentRepetition());
        Random random = new Random(rep.getCurrentRepetition());
        CompletableFuture<Void> load = publisher(shard, rep.getCurrentRepetition());

        List<Collector> subscribers = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
            awaitTail(shard, (long) k * TOTAL / 10 + random.nextInt(500), load);
            long t = tail(shard);
            StartPosition start = switch (k % 4) {
                case 0 -> StartPosition.EARLIEST;
                case 1 -> StartPosition.at(t / 2 + (t > 0 ? random.nextInt((int) Math.max(1, t / 2)) : 0));
                case 2 -> StartPosition.at(t);
                default -> StartPosition.LATEST;
            };
            // Alternate a small lossless queue (replay must wait for space) with a roomy one.
            boolean small = k % 2 == 0;
            subscribers.add(fx.draining(shard, start, small ? QueuePolicy.BLOCK : QueuePolicy.DROP_NEW,
                    small ? new QueueLimits(32, 1 << 20) : ROOMY));
        }
        Await.get(load);
        Await.until("every publish taken", () -> tail(shard) == TOTAL);

        for (Collector c : subscribers) {
            c.awaitCoveredTo(TOTAL);
            assertThat(c.gaps()).as("subscriber from %d", c.startOffset()).isEmpty();
            checkPayloads(c);
        }
        assertThat(subscribers.get(0).startOffset()).isZero();
        assertThat(fx.broker.metrics().dropped(Checkpoint.SUBSCRIBER_QUEUE).sum()).isZero();
    }

    /**
     * The same with a small ring and small lossy queues: subscribers fall behind and the ring moves
     * past them, so they miss events. Every offset must still be accounted for exactly once, as an
     * event or inside a gap, and the gaps must add up to what the broker counted as lost.
     */
    @RepeatedTest(3)
    void replayDuringLoad_smallRingAndLossyQueues_everyOffsetOnceAsEventOrGap(org.junit.jupiter.api.RepetitionInfo rep)
            throws Exception {
        fx = new Fixture(Fixture.config().withRing(256, 1 << 20));
        Shard shard = fx.shard("lossy-" + rep.getCurrentRepetition());
        Random random = new Random(100 + rep.getCurrentRepetition());
        CompletableFuture<Void> load = publisher(shard, 100 + rep.getCurrentRepetition());

        List<Collector> subscribers = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
            awaitTail(shard, (long) k * TOTAL / 10 + random.nextInt(500), load);
            QueuePolicy policy = k % 2 == 0 ? QueuePolicy.DROP_NEW : QueuePolicy.DROP_OLD;
            QueueLimits limits = new QueueLimits(8 + random.nextInt(24), 1 << 20);
            Subscription s = null;
            while (s == null) {
                ShardInfo info = shard.info();
                long span = Math.max(1, info.nextOffset() - info.oldestOffset());
                StartPosition start = k % 3 == 0 ? StartPosition.EARLIEST
                        : StartPosition.at(info.oldestOffset() + random.nextInt((int) Math.min(span, Integer.MAX_VALUE)));
                try {
                    s = shard.subscribe(new SubscribeRequest(start, policy, limits, 0)).get(20, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    // The ring moved on between reading the info and subscribing: that is the contract.
                    assertThat(((FelixException) e.getCause()).code()).isEqualTo(ErrorCode.CURSOR_TOO_OLD);
                }
            }
            subscribers.add(fx.track(Collector.draining(s)));
        }
        Await.get(load);

        long gapEvents = 0;
        for (Collector c : subscribers) {
            c.awaitCoveredTo(TOTAL);
            checkPayloads(c);
            for (GapNotice g : c.gaps()) {
                gapEvents += g.missed();
            }
        }
        var m = fx.broker.metrics();
        assertThat(gapEvents).isEqualTo(m.dropped(Checkpoint.SUBSCRIBER_QUEUE).sum() + m.retentionMissedEvents.sum());
    }
}
