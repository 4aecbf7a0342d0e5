package dev.felix.core.stream;

import static dev.felix.core.testing.Fixture.ROOMY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;
import dev.felix.core.testing.Fixture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The shares of a batch fanned out live ({@link EventBatch}): its shared encoding lives while any queue that took the
 * batch, or a subscriber waiting to take it, has not given its share back, and is released exactly once after the last
 * one, whichever way it leaves: written, evicted, skipped, cleared, or never queued.
 */
class EventBatchSharesTest {

    private static final QueueLimits ONE_EVENT = new QueueLimits(1, 1 << 20);

    private Fixture fx;
    private final List<Subscription> subscriptions = new ArrayList<>();

    /** A transport's encoding that only counts its releases. */
    private static final class Encoding implements EventBatch.SharedEncoding {
        final AtomicInteger released = new AtomicInteger();

        @Override
        public void release() {
            released.incrementAndGet();
        }
    }

    @AfterEach
    void close() {
        subscriptions.forEach(Subscription::close);
        if (fx != null) {
            fx.close();
        }
    }

    private Shard shard(String name) {
        fx = new Fixture(Fixture.config());
        return fx.shard(name);
    }

    private Subscription subscribe(Shard shard, StartPosition start, QueuePolicy policy, QueueLimits limits) {
        Subscription s = Fixture.subscribe(shard, start, policy, limits);
        subscriptions.add(s);
        return s;
    }

    private static EventBatch take(Subscription s) {
        Delivery d = s.poll();
        assertThat(d).isInstanceOf(EventBatch.class);
        return (EventBatch) d;
    }

    @Test
    void aLiveBatch_keepsItsSharedEncoding_untilEveryQueueThatTookItGaveItsShareBack() {
        Shard shard = shard("shares");
        Subscription a = subscribe(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY);
        Subscription b = subscribe(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY);
        Subscription c = subscribe(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY);
        Fixture.publish(shard, "one");

        EventBatch first = take(a);
        assertThat(first.shares()).as("one per queue; the fanout gave its own back").isEqualTo(3);
        Encoding encoding = first.shared(0, x -> new Encoding());
        assertThat(encoding).isNotNull();
        first.releaseShare();
        EventBatch second = take(b);
        assertThat(second).isSameAs(first);
        assertThat(second.<Encoding>shared(0, x -> new Encoding())).as("encoded once").isSameAs(encoding);
        second.releaseShare();
        assertThat(encoding.released).hasValue(0);

        take(c).releaseShare();

        assertThat(encoding.released).hasValue(1);
        assertThat(first.<Encoding>shared(0, x -> new Encoding())).as("no share is outstanding").isNull();
        assertThatThrownBy(first::releaseShare).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closingASubscription_givesBackTheSharesOfWhatItsQueueHeld() {
        Shard shard = shard("close");
        Subscription reader = subscribe(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY);
        Subscription leaver = subscribe(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY);
        List<Encoding> encodings = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Fixture.publish(shard, "e" + i);
            EventBatch batch = take(reader);
            encodings.add(batch.shared(0, x -> new Encoding()));
            batch.releaseShare();
        }
        assertThat(encodings).allSatisfy(e -> assertThat(e.released).hasValue(0));

        leaver.close();

        assertThat(encodings).allSatisfy(e -> assertThat(e.released).hasValue(1));
    }

    @Test
    void dropOld_evictingABatch_givesBackItsShare() {
        Shard shard = shard("drop-old");
        Subscription stalled = subscribe(shard, StartPosition.LATEST, QueuePolicy.DROP_OLD, ONE_EVENT);
        Subscription healthy = subscribe(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY);
        Fixture.publish(shard, "old");
        EventBatch old = take(healthy);
        Encoding encoding = old.shared(0, x -> new Encoding());
        old.releaseShare();
        assertThat(encoding.released).as("the stalled queue still holds it").hasValue(0);

        Fixture.publish(shard, "new"); // the stalled queue evicts "old" for it

        assertThat(encoding.released).hasValue(1);
        assertThat(stalled.poll()).isInstanceOf(GapNotice.class);
        take(stalled).releaseShare();
    }

    @Test
    void dropNew_aSubscriberThatSkipsTheBatch_holdsNoShareOfIt() {
        Shard shard = shard("drop-new");
        subscribe(shard, StartPosition.LATEST, QueuePolicy.DROP_NEW, ONE_EVENT);
        Subscription healthy = subscribe(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY);
        Fixture.publish(shard, "kept");
        take(healthy).releaseShare();
        Fixture.publish(shard, "skipped"); // the full queue skips it

        EventBatch skipped = take(healthy);
        assertThat(skipped.shares()).isEqualTo(1);
        Encoding encoding = skipped.shared(0, x -> new Encoding());
        skipped.releaseShare();

        assertThat(encoding.released).hasValue(1);
    }

    @Test
    void block_aSubscriberWaitingForRoom_holdsItsShare_untilItLeaves() {
        Shard shard = shard("block");
        Subscription waiting = subscribe(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ONE_EVENT);
        Subscription healthy = subscribe(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY);
        Fixture.publish(shard, "queued");
        take(healthy).releaseShare();
        Fixture.publish(shard, "waiting"); // the full queue holds the writer: the batch waits for it
        EventBatch batch = take(healthy);
        Encoding encoding = batch.shared(0, x -> new Encoding());
        batch.releaseShare();
        assertThat(encoding.released).as("held by the subscriber waiting for room").hasValue(0);

        waiting.close();
        Fixture.writerBarrier(shard); // the writer has detached it

        assertThat(encoding.released).hasValue(1);
    }

    @Test
    void aReplayFromTheRing_isAnUncountedInstance_andLeavesTheLiveOnesSharesAlone() {
        Shard shard = shard("replay");
        Subscription live = subscribe(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY);
        Fixture.publish(shard, "one");
        Subscription replay = subscribe(shard, StartPosition.EARLIEST, QueuePolicy.BLOCK, ROOMY);
        Fixture.writerBarrier(shard); // the writer fed it from the ring right after answering the subscribe

        EventBatch replayed = take(replay);
        assertThat(replayed.shares()).isEqualTo(-1);
        assertThat(replayed.<Encoding>shared(0, x -> new Encoding())).as("its writer copies").isNull();
        replayed.releaseShare(); // nothing to give back

        EventBatch batch = take(live);
        assertThat(batch).isNotSameAs(replayed);
        assertThat(batch.shares()).isEqualTo(1);
        Encoding encoding = batch.shared(0, x -> new Encoding());
        batch.releaseShare();
        assertThat(encoding.released).hasValue(1);
    }
}
