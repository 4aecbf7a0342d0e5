package dev.felix.core.stream;

import static dev.felix.core.testing.Fixture.ROOMY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.core.broker.Broker;
import dev.felix.core.CoreConfig;
import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.testing.AckListener;
import dev.felix.core.testing.Await;
import dev.felix.core.testing.Fixture;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Payloads in lent memory ({@link LentPayloads}): a batch made of them reads like one made of arrays, and every holder
 * the class comments name (the publish, the ring, the live fanout, each replay queue) gives its reference back exactly
 * once, whichever way the batch leaves: evicted from the ring, written, replayed, merged, refused, or the shard closed.
 * A region read after its last release, or released once too often, fails the test.
 */
class LentPayloadsTest {

    private static final QueueLimits ONE_EVENT = new QueueLimits(1, 1 << 20);

    /** Lent memory over a heap array that counts its references and refuses any use after the last release. */
    static final class Counted extends LentPayloads {
        final byte[] region;
        final AtomicInteger refs = new AtomicInteger(1);
        /** Lengths read so far. */
        final AtomicInteger lengthReads = new AtomicInteger();
        /** Regions merged into this one: their references are this one's now. */
        final List<Counted> merged = new ArrayList<>();

        Counted(byte[] region) {
            this.region = region;
        }

        /** The events {@code payloads}, each behind its four-byte length. */
        static Counted of(String... payloads) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (String p : payloads) {
                byte[] b = p.getBytes(StandardCharsets.UTF_8);
                out.writeBytes(ByteBuffer.allocate(4).putInt(b.length).array());
                out.writeBytes(b);
            }
            return new Counted(out.toByteArray());
        }

        private void live() {
            if (refs.get() <= 0) {
                throw new IllegalStateException("read after the last release");
            }
        }

        @Override
        public int lengthAt(int position) {
            live();
            lengthReads.incrementAndGet();
            return ByteBuffer.wrap(region).getInt(position);
        }

        @Override
        public void copy(int position, byte[] dst, int dstOffset, int length) {
            live();
            System.arraycopy(region, position, dst, dstOffset, length);
        }

        @Override
        public void copy(int position, ByteBuffer dst, int length) {
            live();
            dst.put(region, position, length);
        }

        @Override
        public void retain() {
            live();
            refs.incrementAndGet();
        }

        @Override
        public void release() {
            if (refs.decrementAndGet() < 0) {
                throw new IllegalStateException("released once too often");
            }
        }

        @Override
        public int references() {
            return refs.get();
        }

        @Override
        public LentPayloads followedBy(LentPayloads[] others) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(region);
            for (LentPayloads o : others) {
                out.writeBytes(((Counted) o).region);
            }
            Counted all = new Counted(out.toByteArray());
            all.merged.add(this);
            for (LentPayloads o : others) {
                all.merged.add((Counted) o);
            }
            for (Counted part : all.merged) {
                part.release(); // its reference is the merged region's now
            }
            return all;
        }
    }

    private Fixture fx;
    private final List<Subscription> subscriptions = new ArrayList<>();

    @AfterEach
    void close() {
        subscriptions.forEach(Subscription::close);
        if (fx != null) {
            fx.close();
        }
    }

    private Shard shard(CoreConfig config) {
        fx = new Fixture(config);
        return fx.shard("lent");
    }

    private Subscription subscribe(Shard shard, StartPosition start, QueuePolicy policy, QueueLimits limits) {
        Subscription s = Fixture.subscribe(shard, start, policy, limits);
        subscriptions.add(s);
        return s;
    }

    private static PublishRequest lent(Counted region, int count, AckListener listener) {
        long bytes = region.region.length - 4L * count;
        return PublishRequest.lent(region, count, bytes, listener);
    }

    /** Publishes {@code region} and waits for its acknowledgement. */
    private static Counted publish(Shard shard, String... payloads) {
        Counted region = Counted.of(payloads);
        AckListener ack = new AckListener();
        assertThat(shard.tryPublish(lent(region, payloads.length, ack))).isTrue();
        Await.get(ack.future);
        return region;
    }

    private static EventBatch take(Subscription s) {
        Delivery d = s.poll();
        assertThat(d).isInstanceOf(EventBatch.class);
        return (EventBatch) d;
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void aLentBatch_readsLikeOneOfArrays_whole_fromAnOffset_andCut() {
        Counted region = Counted.of("a", "bb", "ccc");
        EventBatch batch = EventBatch.lent(0, 10, region, 3, 6, 0);

        assertThat(batch.payloads()).extracting(LentPayloadsTest::text).containsExactly("a", "bb", "ccc");
        assertThat(text(batch.payload(2))).isEqualTo("ccc");
        assertThat(batch.lentLength()).isEqualTo(18);
        EventBatch tail = batch.from(11);
        assertThat(tail.baseOffset()).isEqualTo(11);
        assertThat(tail.payloadBytes()).isEqualTo(5);
        assertThat(tail.lentPosition()).isEqualTo(5);
        assertThat(text(tail.payload(0))).isEqualTo("bb");
        EventBatch head = batch.first(2);
        assertThat(head.payloadBytes()).isEqualTo(3);
        assertThat(head.lentLength()).isEqualTo(11);
        assertThat(head.payloads()).extracting(LentPayloadsTest::text).containsExactly("a", "bb");
        assertThatThrownBy(batch::payloadArray).isInstanceOf(IllegalStateException.class);
        assertThat(region.references()).as("reading takes no reference").isEqualTo(1);
    }

    @Test
    void split_cutsALentBatchLikeOneOfArrays_readingEachLengthOnce() {
        String[] events = {"a", "bb", "ccc", "dddd", "e", "ffffff", "gg"};
        Counted region = Counted.of(events);
        EventBatch lent = EventBatch.lent(0, 100, region, events.length, 19, 0);
        EventBatch arrays = new EventBatch(0, 100, java.util.Arrays.stream(events)
                .map(e -> e.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new), 0);

        // At most 13 bytes a part, each event counted with 4 more: a + bb (11; ccc would make 18) | ccc (dddd would
        // make 15) | dddd + e (13) | ffffff (10; gg would make 16) | gg.
        for (EventBatch batch : List.of(lent, arrays)) {
            region.lengthReads.set(0);
            List<EventBatch> parts = batch.split(13, 4);
            if (batch == lent) {
                assertThat(region.lengthReads).as("each length read once").hasValue(events.length);
            }
            assertThat(parts).extracting(EventBatch::baseOffset).containsExactly(100L, 102L, 103L, 105L, 106L);
            assertThat(parts).extracting(p -> p.payloads().stream().map(LentPayloadsTest::text).toList())
                    .containsExactly(List.of("a", "bb"), List.of("ccc"), List.of("dddd", "e"), List.of("ffffff"),
                            List.of("gg"));
            assertThat(parts).extracting(EventBatch::payloadBytes).containsExactly(3L, 3L, 5L, 6L, 2L);
        }
        // An event larger than the bound goes alone; a batch that fits is returned whole, not copied.
        assertThat(lent.split(5, 4)).hasSize(7);
        assertThat(lent.split(1 << 20, 4)).containsExactly(lent);
        assertThat(arrays.split(1 << 20, 4)).containsExactly(arrays);
        assertThat(lent.from(103).split(8, 4)).extracting(EventBatch::baseOffset).containsExactly(103L, 104L, 105L,
                106L);
        assertThat(region.references()).as("views take no reference").isEqualTo(1);
    }

    @Test
    void theRingKeepsABatchsReference_untilItEvictsIt_andTheLiveFanoutOneUntilTheLastShare() {
        Shard shard = shard(Fixture.config().withRing(2, 1 << 20));
        Subscription a = subscribe(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY);
        Subscription b = subscribe(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY);
        List<Counted> regions = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            regions.add(publish(shard, "e" + i));
        }
        // Queued for a and b: the live fanout's reference; in the ring (the two newest): the ring's.
        assertThat(regions).extracting(Counted::references).containsExactly(1, 1, 2, 2);

        for (int i = 0; i < 4; i++) {
            EventBatch fromA = take(a);
            assertThat(text(fromA.payload(0))).isEqualTo("e" + i);
            fromA.releaseShare();
            assertThat(regions.get(i).references()).as("b still holds its share").isEqualTo(i < 2 ? 1 : 2);
            take(b).releaseShare();
        }
        assertThat(regions).extracting(Counted::references).containsExactly(0, 0, 1, 1);

        regions.add(publish(shard, "e4"));
        assertThat(regions.get(2).references()).as("evicted by the fifth").isZero();
        take(a).releaseShare();
        take(b).releaseShare();

        fx.close();
        fx = null;
        assertThat(regions).extracting(Counted::references).containsOnly(0);
    }

    @Test
    void settling_copiesTheRingsOlderLentBatchesIntoArrays_givesTheirMemoryBack_andReplaysReadTheSame() {
        Shard shard = shard(Fixture.config());
        Subscription live = subscribe(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY);
        Counted old = publish(shard, "o0", "o1");
        long cutoff = System.nanoTime();
        Counted young = publish(shard, "y0");
        EventBatch queued = take(live); // the live share of the old batch, not yet given back
        assertThat(old.references()).as("the ring's and the live fanout's").isEqualTo(2);

        assertThat(Await.get(shard.settleLent(cutoff))).as("the old batch's payload bytes").isEqualTo(4);
        assertThat(old.references()).as("the ring let it go; the live share still holds it").isEqualTo(1);
        assertThat(young.references()).as("accepted after the cutoff: kept lent").isEqualTo(2);
        assertThat(text(queued.payload(1))).isEqualTo("o1");
        queued.releaseShare();
        assertThat(old.references()).isZero();

        Subscription replay = subscribe(shard, StartPosition.EARLIEST, QueuePolicy.BLOCK, ROOMY);
        // The subscribe completes just before its replay is queued (both on the writer): wait for the queue.
        Delivery[] polled = new Delivery[1];
        Await.until("the replay queued", () -> (polled[0] = replay.poll()) != null);
        assertThat(polled[0]).isInstanceOf(EventBatch.class);
        EventBatch first = (EventBatch) polled[0];
        assertThat(first.lent()).as("settled: arrays").isNull();
        assertThat(first.baseOffset()).isZero();
        assertThat(first.payloads()).extracting(LentPayloadsTest::text).containsExactly("o0", "o1");
        first.releaseShare();
        EventBatch second = take(replay);
        assertThat(second.lent()).isSameAs(young);
        assertThat(text(second.payload(0))).isEqualTo("y0");
        second.releaseShare();
        take(live).releaseShare();

        assertThat(Await.get(shard.settleLent(System.nanoTime()))).as("the young one, now").isEqualTo(2);
        assertThat(young.references()).isZero();
        assertThat(Await.get(shard.settleLent(System.nanoTime()))).as("nothing lent left").isZero();
        assertThat(shard.info().oldestOffset()).as("offsets unchanged").isZero();
        assertThat(shard.info().nextOffset()).isEqualTo(3);
    }

    @Test
    void aReplayFromTheRing_holdsOneReferencePerQueue_untilItsTakerGivesItBack() {
        Shard shard = shard(Fixture.config());
        Counted first = publish(shard, "x0");
        Counted second = publish(shard, "x1");
        Subscription one = subscribe(shard, StartPosition.EARLIEST, QueuePolicy.BLOCK, ROOMY);
        Subscription two = subscribe(shard, StartPosition.EARLIEST, QueuePolicy.BLOCK, ROOMY);

        // The subscribe completes just before its replay is queued (both on the writer): wait for the queues.
        Await.until("the ring and two replay queues hold it", () -> first.references() == 3);
        EventBatch replayed = take(one);
        assertThat(text(replayed.payload(0))).isEqualTo("x0");
        replayed.releaseShare();
        assertThat(first.references()).isEqualTo(2);
        take(two).releaseShare();
        take(one).releaseShare();
        assertThat(first.references()).isEqualTo(1);
        assertThat(second.references()).isEqualTo(2);

        two.close(); // unsubscribe: its queue gives back what it still held
        subscriptions.remove(two);
        Await.until("the queue's reference given back", () -> second.references() == 1);
    }

    @Test
    void aBatchPeekedWithAHold_staysReadable_whenDropOldEvictsItBeforeItIsTaken() {
        Shard shard = shard(Fixture.config().withRing(1, 1 << 20));
        Subscription s = subscribe(shard, StartPosition.LATEST, QueuePolicy.DROP_OLD, ONE_EVENT);
        Counted a = publish(shard, "looked at");
        EventBatch seen = (EventBatch) s.peekHeld();
        assertThat(seen.lent()).isSameAs(a);

        publish(shard, "evicts it"); // from the one-event ring and from the queue
        assertThat(a.references()).as("only the hold is left").isEqualTo(1);
        assertThat(text(seen.payload(0))).isEqualTo("looked at");
        assertThat(s.poll()).as("what the queue holds now").isInstanceOf(GapNotice.class);

        seen.releaseLent();
        assertThat(a.references()).isZero();
        take(s).releaseShare();
    }

    @Test
    void publishesQueuedTogether_becomeOneMergedRegion_readInOrder_andGivenBackOnce() {
        Shard shard = shard(Fixture.config());
        Subscription blocker = subscribe(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ONE_EVENT);
        Subscription observer = subscribe(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY);
        Fixture.publish(shard, "fills the blocker");
        Fixture.publishAsync(shard, "holds the writer");
        Await.until("the writer waits for the blocker", () -> shard.info().nextOffset() == 2);
        Fixture.writerBarrier(shard);

        Counted r1 = Counted.of("m1");
        Counted r2 = Counted.of("m2", "m3");
        AckListener ack1 = new AckListener();
        AckListener ack2 = new AckListener();
        assertThat(shard.tryPublish(lent(r1, 1, ack1))).isTrue();
        assertThat(shard.tryPublish(lent(r2, 2, ack2))).isTrue();
        take(blocker).releaseShare(); // the writer goes on: the held batch, then both publishes as one batch
        Await.get(ack2.future);

        take(observer).releaseShare();
        take(observer).releaseShare();
        EventBatch merged = take(observer);
        assertThat(merged.eventCount()).isEqualTo(3);
        assertThat(merged.payloads()).extracting(LentPayloadsTest::text).containsExactly("m1", "m2", "m3");
        Counted region = (Counted) merged.lent();
        assertThat(region.merged).containsExactly(r1, r2);
        merged.releaseShare();

        subscriptions.remove(blocker);
        blocker.close();
        fx.close();
        fx = null;
        assertThat(region.references()).isZero();
        assertThat(List.of(r1, r2)).extracting(Counted::references).containsOnly(0);
    }

    @Test
    void aPublishRefusedByAClosingShard_givesItsMemoryBack_andItsPublisherIsTold() {
        Shard shard = shard(Fixture.config());
        Await.get(shard.close());
        Counted region = Counted.of("late");
        AckListener ack = new AckListener();

        assertThat(shard.tryPublish(lent(region, 1, ack))).isTrue();

        assertThat(region.references()).isZero();
        assertThat(ack.future).isCompletedExceptionally();
    }

    @Test
    void aDurableShard_appendsALentPublishFromItsMemory_andALogReplayReadsTheSameBytes(@TempDir Path dir)
            throws Exception {
        CoreConfig config = Fixture.config().withAutoCreate(false).withOpenTenants(true)
                .withStorage(CoreConfig.Storage.at(dir)).withRing(1, 1 << 20);
        List<Counted> regions = new ArrayList<>();
        try (Broker broker = new Broker(config)) {
            Shard shard = broker.createStream(new StreamName("t", "ns", "durable"),
                    new StreamConfig(1, true, StreamConfig.Fsync.NONE, 0, null)).shard(0);
            Subscription live = Fixture.subscribe(shard, StartPosition.LATEST, QueuePolicy.BLOCK, ROOMY);
            regions.add(publish(shard, "kept", "on disk"));
            regions.add(publish(shard, "and this"));

            EventBatch first = take(live);
            assertThat(first.lent()).as("the live batch keeps the lent memory").isSameAs(regions.get(0));
            assertThat(first.payloads()).extracting(LentPayloadsTest::text).containsExactly("kept", "on disk");
            first.releaseShare();
            take(live).releaseShare();
            live.close();
            assertThat(regions.get(0).references()).as("evicted from the one-batch ring").isZero();

            Subscription replay = Fixture.subscribe(shard, StartPosition.EARLIEST, QueuePolicy.BLOCK, ROOMY);
            Await.until("the replay is queued", () -> replay.peek() != null); // queued just after the subscribe
            EventBatch fromLog = take(replay);
            assertThat(fromLog.lent()).as("read back from the log").isNull();
            assertThat(fromLog.payloads()).extracting(LentPayloadsTest::text).containsExactly("kept", "on disk");
            fromLog.releaseShare();
            replay.close();
        }
        assertThat(regions).extracting(Counted::references).containsOnly(0);
    }
}
