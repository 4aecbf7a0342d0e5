package dev.felix.core.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.broker.Broker;
import dev.felix.storage.SegmentedLog;
import dev.felix.core.testing.AckListener;
import dev.felix.core.testing.Await;
import dev.felix.core.testing.Fixture;
import dev.felix.core.writer.CommitGate;
import dev.felix.core.writer.GateFactory;
import dev.felix.core.writer.LogRef;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code block} subscriber whose queue is full when one commit makes several batches visible at once (a group fsync,
 * a replication round) gets every one of them, in order: the first waits for room, the later ones are read by offset
 * after it. The later ones used to take the waiting one's place, and it was lost.
 */
@Timeout(30)
class BlockBehindOneCommitTest {

    private static final StreamName NAME = new StreamName("t", "ns", "held");

    @TempDir
    Path dir;

    /** Local logs whose commits wait until the test lets everything appended through at once. */
    static final class HeldGates implements GateFactory {
        volatile long appended;
        volatile CommitGate.Committer committer;

        @Override
        public Opened open(LogRef ref, SegmentedLog log, boolean onCommit) {
            return new Opened(new CommitGate() {
                @Override
                public void appended(long end, Committer c) {
                    committer = c;
                    appended = end;
                }

                @Override
                public void force(long end, Committer c) {
                    c.committed(end);
                }
            }, log.tailOffset());
        }

        void commitEverything() {
            committer.committed(appended);
        }
    }

    @Test
    void aBlockedSubscriber_getsEveryBatchThatOneCommitMadeVisible_inOrder() throws Exception {
        HeldGates gates = new HeldGates();
        try (Broker broker = Fixture.durableBroker(dir, gates)) {
            Shard shard = broker.createStream(NAME, new StreamConfig(1, true, StreamConfig.Fsync.NONE, 0, null))
                    .shard(0);
            Subscription subscription = Fixture.subscribe(shard, StartPosition.LATEST, QueuePolicy.BLOCK,
                    new QueueLimits(1, 1 << 20));
            List<AckListener> acks = new ArrayList<>();
            for (String payload : List.of("a", "b", "c")) { // three batches: each appended before the next is sent
                acks.add(Fixture.publishAsync(shard, payload));
                long end = acks.size();
                Await.until("batch " + end + " appended", () -> gates.appended == end);
            }

            gates.commitEverything(); // "a" fills the queue, "b" waits for room, "c" comes after it
            acks.forEach(a -> Await.get(a.future));

            List<String> received = new ArrayList<>();
            Await.until("three events received", () -> {
                for (Delivery d; (d = subscription.poll()) != null; ) {
                    EventBatch batch = (EventBatch) d; // a gap notice here would be a loss the policy forbids
                    for (int i = 0; i < batch.eventCount(); i++) {
                        received.add(new String(batch.payload(i), StandardCharsets.UTF_8));
                    }
                    batch.releaseShare();
                }
                return received.size() >= 3;
            });
            assertThat(received).containsExactly("a", "b", "c");

            AckListener next = Fixture.publishAsync(shard, "d");
            Await.until("the writer is not held any more", () -> gates.appended == 4);
            gates.commitEverything();
            assertThat(Await.get(next.future).firstOffset()).isEqualTo(3);
            subscription.close();
        }
    }
}
