package dev.felix.core.stream;

import static dev.felix.core.testing.Fixture.ROOMY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.CoreMetrics;
import dev.felix.core.ErrorCode;
import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;
import dev.felix.core.testing.AckListener;
import dev.felix.core.testing.Await;
import dev.felix.core.testing.Collector;
import dev.felix.core.testing.Fixture;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The shard writer's scheduling, driven step by step through a manual executor so interleavings that
 * are races on a real pool happen here on purpose: one writer task at a time, yielding after a long
 * backlog, and a close that lands while the writer is running.
 */
class ShardSchedulingTest {

    /** Runs tasks only when told; can be shut down like a pool (then it rejects). */
    static final class ManualExecutor implements Executor {
        final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
        boolean shutDown;

        @Override
        public void execute(Runnable task) {
            if (shutDown) {
                throw new RejectedExecutionException("shut down");
            }
            tasks.add(task);
        }

        /** Runs queued tasks (and those they queue) until none is left. */
        void runAll() {
            Runnable t;
            while ((t = tasks.poll()) != null) {
                t.run();
            }
        }
    }

    private final ManualExecutor executor = new ManualExecutor();
    private final AtomicLong ids = new AtomicLong();

    private Shard shard(QueueLimits writerQueue) {
        return new Shard("t/ns/s/0", 0, 1, Fixture.config().withWriterQueue(writerQueue), new CoreMetrics(), executor,
                ids::incrementAndGet, QueuePolicy.DROP_NEW, null, false,
                new dev.felix.core.writer.LogRef(dev.felix.core.writer.LogRef.Kind.STREAM, "t/ns/s", 0, 0),
                dev.felix.core.writer.GateFactory.LOCAL, CompletableFuture.completedFuture(null));
    }

    @Test
    void schedule_manyPublishesAndControlTasks_queueOneWriterTaskAtATime() {
        Shard shard = shard(ROOMY);
        List<AckListener> acks = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            acks.add(Fixture.publishAsync(shard, "e" + i));
        }
        CompletableFuture<Subscription> sub = shard.subscribe(SubscribeRequest.from(StartPosition.EARLIEST));

        assertThat(executor.tasks).hasSize(1);
        executor.runAll();

        assertThat(acks).allMatch(AckListener::isDone);
        assertThat(Await.get(sub).startOffset()).isZero();
        assertThat(executor.tasks).isEmpty();
        assertThat(shard.info().nextOffset()).isEqualTo(10);
    }

    @Test
    void writer_longBacklog_yieldsItsThreadAndReschedulesItself() {
        Shard shard = shard(new QueueLimits(1 << 20, 1L << 30));
        int total = Shard.MAX_PUBLISHES_PER_RUN + 100;
        for (int i = 0; i < total; i++) {
            shard.tryPublish(Fixture.request(null, "e"));
        }

        executor.tasks.poll().run();

        assertThat(shard.info().nextOffset()).isEqualTo(Shard.MAX_PUBLISHES_PER_RUN);
        assertThat(executor.tasks).as("rescheduled for the rest").hasSize(1);
        executor.runAll();
        assertThat(shard.info().nextOffset()).isEqualTo(total);
    }

    /**
     * The broker closes (shard told to close, pool shut down) while the writer is at the end of a
     * run: the shutdown task is posted after the writer's last look at its control queue, so the
     * writer must reschedule itself on a pool that now rejects. The shutdown must still happen:
     * subscriptions end and queued publishes are answered.
     */
    @Test
    void close_whileTheWriterRuns_andThePoolRejects_stillEndsSubscriptionsAndAnswersPublishes() {
        Shard shard = shard(new QueueLimits(2, 1 << 20));
        CompletableFuture<Subscription> sub = shard.subscribe(SubscribeRequest.from(StartPosition.LATEST));
        executor.runAll();
        Collector subscriber = Collector.manual(Await.get(sub));

        AckListener first = Fixture.publishAsync(shard, "e0");
        Fixture.publishAsync(shard, "e1");
        AckListener refused = new AckListener();
        assertThat(shard.tryPublish(Fixture.request(refused, "e2"))).isFalse();
        // Runs on the writer at the end of its run, after its last look at the control queue: the
        // moment Broker.close() would land from another thread.
        shard.onWritable(() -> {
            shard.close();
            executor.shutDown = true;
        });

        executor.runAll();

        assertThat(Await.get(first.future).firstOffset()).isZero();
        assertThat(Await.get(subscriber.ended).code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(shard.tryPublish(Fixture.request(refused, "e2"))).isTrue();
        assertThat(Await.failure(refused.future).code()).isEqualTo(ErrorCode.UNAVAILABLE);
        subscriber.drain();
        assertThat(subscriber.payloads()).containsExactly("e0", "e1");
    }
}
