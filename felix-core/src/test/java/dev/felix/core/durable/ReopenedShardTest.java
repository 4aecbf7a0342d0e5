package dev.felix.core.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.broker.Broker;
import dev.felix.core.stream.Shard;
import dev.felix.core.testing.AckListener;
import dev.felix.core.testing.Await;
import dev.felix.core.testing.Collector;
import dev.felix.core.testing.Fixture;
import dev.felix.core.writer.CommitGate;
import dev.felix.core.writer.GateFactory;
import dev.felix.core.writer.LogRef;
import dev.felix.storage.SegmentedLog;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster member reopens a shard's runtime when leadership of the shard changes ({@link Broker#reopenShard}):
 * the old runtime closes its log and a fresh one opens it on its next use. One log must never have two writers.
 * So a closed runtime never opens the log again, whatever still reaches it, and the fresh runtime opens it only
 * once the old one has closed it.
 *
 * <p>CI saw both go wrong in three-node tests: a create's wait for the new leader's shard kept asking the runtime
 * it had looked up before the takeover replaced it; that closed runtime opened the log again beside the fresh
 * one, its gate displaced the fresh one's, and the fresh runtime's publishes were never acknowledged.
 */
@Timeout(60)
class ReopenedShardTest {

    private static final StreamName NAME = new StreamName("t", "ns", "reopened");
    private static final StreamConfig DURABLE = new StreamConfig(1, true, StreamConfig.Fsync.ON_COMMIT, 0, null);
    private static final FelixError MOVED = FelixError.of(ErrorCode.UNAVAILABLE, "leadership moved; retry");

    @TempDir
    Path dir;

    /** Local gates that record every open and close, and can hold the first gate's close until released. */
    static final class RecordingGates implements GateFactory {
        final List<String> events = new CopyOnWriteArrayList<>();
        final AtomicInteger opens = new AtomicInteger();
        final CountDownLatch firstCloseEntered = new CountDownLatch(1);
        final CountDownLatch releaseFirstClose = new CountDownLatch(1);
        volatile boolean holdFirstClose;
        /** Refuse as a node that does not lead the shard does. */
        volatile boolean follower;

        @Override
        public void checkMayOpen(LogRef ref) throws FelixException {
            if (follower) {
                throw new FelixException(ErrorCode.NOT_LEADER, "node b leads " + ref);
            }
        }

        @Override
        public Opened open(LogRef ref, SegmentedLog log, boolean onCommit) throws FelixException {
            checkMayOpen(ref);
            int n = opens.incrementAndGet();
            events.add("open " + n);
            Opened local = GateFactory.LOCAL.open(ref, log, onCommit);
            CommitGate inner = local.gate();
            return new Opened(new CommitGate() {
                @Override
                public void appended(long end, Committer committer) {
                    inner.appended(end, committer);
                }

                @Override
                public void force(long end, Committer committer) {
                    inner.force(end, committer);
                }

                @Override
                public void close() {
                    if (n == 1 && holdFirstClose) { // the old runtime's close, held half-way (on its writer)
                        firstCloseEntered.countDown();
                        try {
                            releaseFirstClose.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    inner.close();
                    events.add("close " + n);
                }
            }, local.committed());
        }
    }

    @Test
    void aReplacedRuntimeNeverOpensTheLogAgain_whatStillReachesItIsRefused() throws Exception {
        RecordingGates gates = new RecordingGates();
        try (Broker broker = Fixture.durableBroker(dir, gates)) {
            Shard old = broker.createStream(NAME, DURABLE).shard(0);
            assertThat(Fixture.publish(old, "a").firstOffset()).isZero();

            broker.reopenShard(NAME, 0, MOVED).get(10, TimeUnit.SECONDS);

            // Code that looked the runtime up before the reopen still holds it.
            FelixError load = failure(old.load());
            assertThat(load.code()).isEqualTo(ErrorCode.UNAVAILABLE);
            assertThat(load.message()).contains("shutting down");
            assertThat(refusal(Fixture.publishAsync(old, "late")).code()).isEqualTo(ErrorCode.UNAVAILABLE);
            assertThat(gates.events).as("the closed runtime opened nothing").containsExactly("open 1", "close 1");

            Shard fresh = broker.stream(NAME).shard(0);
            assertThat(fresh).isNotSameAs(old);
            assertThat(Fixture.publish(fresh, "b").firstOffset()).as("the fresh runtime goes on at the tail")
                    .isEqualTo(1);
            assertThat(gates.events).containsExactly("open 1", "close 1", "open 2");
            Collector reader = Collector.draining(Fixture.subscribe(fresh, StartPosition.EARLIEST, QueuePolicy.BLOCK,
                    Fixture.ROOMY));
            reader.awaitCoveredTo(2);
            assertThat(reader.events()).containsExactly("0=a", "1=b");
        }
    }

    @Test
    void aRuntimeThatNeverOpenedTheLog_doesNotOpenItOnceReplaced_evenWhenThisNodeMayNowWriteIt() throws Exception {
        RecordingGates gates = new RecordingGates();
        gates.follower = true;
        try (Broker broker = Fixture.durableBroker(dir, gates)) {
            Shard old = broker.createStream(NAME, DURABLE).shard(0);
            assertThat(refusal(Fixture.publishAsync(old, "x")).code()).as("another node leads it")
                    .isEqualTo(ErrorCode.NOT_LEADER);

            // This node comes to lead the shard: its runtime is replaced, then it may open the log.
            broker.reopenShard(NAME, 0, MOVED).get(10, TimeUnit.SECONDS);
            gates.follower = false;

            assertThat(failure(old.load()).message()).contains("shutting down");
            assertThat(refusal(Fixture.publishAsync(old, "late")).code()).isEqualTo(ErrorCode.UNAVAILABLE);
            assertThat(gates.events).as("the replaced runtime opened nothing").isEmpty();

            Shard fresh = broker.stream(NAME).shard(0);
            assertThat(Fixture.publish(fresh, "a").firstOffset()).isZero();
            assertThat(gates.events).containsExactly("open 1");
        }
    }

    @Test
    void theFreshRuntimeOpensTheLogOnlyOnceTheOldOneHasClosedIt() throws Exception {
        RecordingGates gates = new RecordingGates();
        try (Broker broker = Fixture.durableBroker(dir, gates)) {
            Shard old = broker.createStream(NAME, DURABLE).shard(0);
            Fixture.publish(old, "a");
            gates.holdFirstClose = true;

            CompletableFuture<Void> reopened = broker.reopenShard(NAME, 0, MOVED);
            assertThat(gates.firstCloseEntered.await(10, TimeUnit.SECONDS)).isTrue();
            Shard fresh = broker.stream(NAME).shard(0);
            assertThat(fresh.reopening()).as("its predecessor still has the log").isTrue();

            FelixError early = refusal(Fixture.publishAsync(fresh, "early"));
            assertThat(early.code()).as("retryable").isEqualTo(ErrorCode.UNAVAILABLE);
            assertThat(early.message()).contains("reopening");
            assertThat(failure(fresh.load()).code()).isEqualTo(ErrorCode.UNAVAILABLE);
            assertThat(gates.events).as("no second open while the first gate is open").containsExactly("open 1");

            gates.releaseFirstClose.countDown();
            reopened.get(10, TimeUnit.SECONDS);
            Await.until("the fresh runtime may open the log", () -> !fresh.reopening());
            assertThat(Fixture.publish(fresh, "b").firstOffset()).isEqualTo(1);
            assertThat(gates.events).containsExactly("open 1", "close 1", "open 2");
        }
    }

    @Test
    void aRuntimeReplacedBeforeItsPredecessorClosed_waitsForBoth() throws Exception {
        RecordingGates gates = new RecordingGates();
        try (Broker broker = Fixture.durableBroker(dir, gates)) {
            Fixture.publish(broker.createStream(NAME, DURABLE).shard(0), "a");
            gates.holdFirstClose = true;

            CompletableFuture<Void> first = broker.reopenShard(NAME, 0, MOVED);
            assertThat(gates.firstCloseEntered.await(10, TimeUnit.SECONDS)).isTrue();
            // The second reopen closes a runtime that never opened the log: its own close is quick.
            broker.reopenShard(NAME, 0, MOVED).get(10, TimeUnit.SECONDS);
            Shard third = broker.stream(NAME).shard(0);
            assertThat(third.reopening()).as("the first runtime still has the log").isTrue();
            assertThat(refusal(Fixture.publishAsync(third, "early")).code()).isEqualTo(ErrorCode.UNAVAILABLE);

            gates.releaseFirstClose.countDown();
            first.get(10, TimeUnit.SECONDS);
            Await.until("the third runtime may open the log", () -> !third.reopening());
            assertThat(Fixture.publish(third, "b").firstOffset()).isEqualTo(1);
            assertThat(gates.events).containsExactly("open 1", "close 1", "open 2");
        }
    }

    private static FelixError failure(CompletableFuture<?> future) throws Exception {
        ExecutionException e = catchThrowableOfType(ExecutionException.class,
                () -> future.get(10, TimeUnit.SECONDS));
        assertThat(e).as("the request was refused").isNotNull();
        return ((FelixException) e.getCause()).error();
    }

    private static FelixError refusal(AckListener listener) throws Exception {
        return failure(listener.future);
    }
}
