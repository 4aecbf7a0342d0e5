package dev.felix.core.durable;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.CoreConfig;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.broker.Broker;
import dev.felix.core.stream.Shard;
import dev.felix.core.testing.Ack;
import dev.felix.core.testing.AckListener;
import dev.felix.core.testing.Await;
import dev.felix.core.testing.Collector;
import dev.felix.core.testing.Fixture;
import dev.felix.core.writer.CommitGate;
import dev.felix.core.writer.GateFactory;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seam a cluster plugs its replication into: a {@link GateFactory} chooses each durable shard's commit
 * gate when the log opens, may say that part of the recovered log is not yet committed, may refuse a batch
 * in time (quorum window) and commit it later, and may refuse to open the log at all (another node leads).
 * Readers never see a record before the gate commits it, and never miss one.
 */
@Timeout(60)
class GateSeamTest {

    private static final StreamName NAME = new StreamName("t", "ns", "replicated");
    private static final StreamConfig DURABLE = new StreamConfig(1, true, StreamConfig.Fsync.NONE, 0, null);

    @TempDir
    Path dir;

    /** A gate the test opens by hand; remembers its committer. */
    static final class HandGate implements CommitGate {
        final AtomicReference<Committer> committer = new AtomicReference<>();
        volatile long appendedEnd = -1;

        @Override
        public void appended(long end, Committer c) {
            appendedEnd = end;
            committer.set(c);
        }

        @Override
        public void force(long end, Committer c) {
            c.committed(end);
        }
    }

    private CoreConfig config() {
        return Fixture.config().withAutoCreate(false).withOpenTenants(true).withStorage(CoreConfig.Storage.at(dir));
    }

    private Broker broker(GateFactory gates) {
        return Fixture.durableBroker(dir, gates);
    }

    @Test
    void aRecoveredTailIsInvisibleUntilCommitted_thenEveryReaderGetsItInOrder_beforeNewerBatches() throws Exception {
        try (Broker first = new Broker(config())) {
            Shard s = first.createStream(NAME, DURABLE).shard(0);
            for (int i = 0; i < 5; i++) {
                Fixture.publish(s, "e" + i);
            }
        }
        HandGate gate = new HandGate();
        try (Broker broker = broker((ref, log, onCommit) -> new GateFactory.Opened(gate, 2))) {
            Shard s = broker.stream(NAME).shard(0);
            Collector replay = Collector.draining(Fixture.subscribe(s, StartPosition.EARLIEST, QueuePolicy.BLOCK,
                    Fixture.ROOMY));
            Collector live = Collector.draining(Fixture.subscribe(s, StartPosition.LATEST, QueuePolicy.BLOCK,
                    Fixture.ROOMY));
            assertThat(live.startOffset()).as("latest is the committed end, not the log's tail").isEqualTo(2);
            replay.awaitCoveredTo(2);
            assertThat(replay.events()).containsExactly("0=e0", "1=e1");
            assertThat(gate.appendedEnd).as("the gate was asked about the recovered tail").isEqualTo(5);

            AckListener newer = Fixture.publishAsync(s, "e5");
            Await.until("the new batch reached the gate", () -> gate.appendedEnd == 6);
            assertThat(newer.isDone()).as("not acknowledged before it commits").isFalse();
            gate.committer.get().committed(6);
            Ack ack = Await.get(newer.future);
            assertThat(ack.firstOffset()).isEqualTo(5);

            replay.awaitCoveredTo(6);
            live.awaitCoveredTo(6);
            assertThat(replay.events()).containsExactly("0=e0", "1=e1", "2=e2", "3=e3", "4=e4", "5=e5");
            assertThat(live.events()).containsExactly("2=e2", "3=e3", "4=e4", "5=e5");
        }
    }

    @Test
    void aBatchRefusedInTime_isAnsweredWithTheError_andReachesReadersWhenItCommitsLater() throws Exception {
        HandGate gate = new HandGate();
        try (Broker broker = broker((ref, log, onCommit) -> new GateFactory.Opened(gate, log.tailOffset()))) {
            Shard s = broker.createStream(NAME, DURABLE).shard(0);
            Collector reader = Collector.draining(Fixture.subscribe(s, StartPosition.EARLIEST, QueuePolicy.BLOCK,
                    Fixture.ROOMY));
            AckListener refused = Fixture.publishAsync(s, "late");
            Await.until("the gate saw the append", () -> gate.appendedEnd == 1);
            gate.committer.get().refused(1, FelixError.of(ErrorCode.QUORUM_TIMEOUT,
                    "the batch is durable here but did not reach a majority within 5s"));
            assertThat(failure(refused).code()).isEqualTo(ErrorCode.QUORUM_TIMEOUT);
            assertThat(reader.events()).as("not visible while not committed").isEmpty();

            gate.committer.get().committed(1);
            reader.awaitCoveredTo(1);
            assertThat(reader.events()).containsExactly("0=late");
        }
    }

    @Test
    void aGateFactoryThatRefuses_failsTheRequestWithItsError_andTheShardOpensOnALaterUse() throws Exception {
        try (Broker first = new Broker(config())) {
            Fixture.publish(first.createStream(NAME, DURABLE).shard(0), "kept");
        }
        boolean[] leading = {false};
        try (Broker broker = broker((ref, log, onCommit) -> {
            if (!leading[0]) {
                throw new FelixException(ErrorCode.NOT_LEADER, "node b leads " + ref);
            }
            return GateFactory.LOCAL.open(ref, log, onCommit);
        })) {
            Shard s = broker.stream(NAME).shard(0);
            AckListener refused = Fixture.publishAsync(s, "x");
            assertThat(failure(refused).code()).isEqualTo(ErrorCode.NOT_LEADER);

            leading[0] = true;
            Ack ack = Fixture.publish(s, "y");
            assertThat(ack.firstOffset()).as("the log reopened at its tail").isEqualTo(1);
        }
    }

    /** The error a publish failed with. */
    private static FelixError failure(AckListener listener) {
        try {
            listener.future.get(20, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            return ((FelixException) e.getCause()).error();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("the publish was acknowledged");
    }
}
