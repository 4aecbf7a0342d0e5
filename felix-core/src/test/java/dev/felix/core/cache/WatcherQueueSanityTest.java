package dev.felix.core.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.QueueLimits;
import dev.felix.core.testing.QueueSanitySuite;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link WatcherQueue} in the core's shared queue sanity suite ({@link QueueSanitySuite}: FIFO order, the
 * change and byte bounds, wake-ups, the space signal, two threads), plus what only this queue has: the
 * snapshot first (cut into chunks as it is polled, outside the limits), the end marker last (always
 * accepted, nothing after it), and {@code clear} ending the watch.
 *
 * <p>A change counts {@code value + 2 x key + 48} bytes ({@link ChangeRing#weight}); the suite's changes
 * have the key {@code "k"} and a value that makes each unit of weight {@value #UNIT} bytes.
 */
class WatcherQueueSanityTest extends QueueSanitySuite {

    static final int UNIT = 64;
    /** Bytes a change of key "k" counts besides its value. */
    private static final int OVERHEAD = 2 + 48;

    private static Change change(long offset, int units) {
        byte[] value = new byte[units * UNIT - OVERHEAD];
        Arrays.fill(value, (byte) offset);
        return new Change(offset, "k", Change.Op.PUT, value, CacheEntry.NEVER);
    }

    @Override
    protected QueueUnderTest newQueue(QueueLimits limits, Runnable spaceListener) {
        WatcherQueue q = new WatcherQueue(limits, spaceListener);
        return new QueueUnderTest() {
            @Override
            public Offered offer(long seq, int units, boolean signalWhenSpace) {
                Change c = change(seq, units);
                assertThat(ChangeRing.weight(c)).isEqualTo((long) units * UNIT);
                WatcherQueue.Offer offer = q.offer(c, signalWhenSpace);
                // The half-full wake is this queue's own (tested below); in the shared contract it is an ADDED.
                return Offered.valueOf((offer == WatcherQueue.Offer.ADDED_HALF ? WatcherQueue.Offer.ADDED : offer)
                        .name());
            }

            @Override
            public long poll() {
                WatchItem item = q.poll();
                if (item == null) {
                    return -1;
                }
                Change c = (Change) item;
                for (byte x : c.value()) {
                    assertThat(x).as("value written before the offer").isEqualTo((byte) c.offset());
                }
                return c.offset();
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
        return UNIT;
    }

    private static WatchEnded ended(long resumeFrom) {
        return new WatchEnded(resumeFrom, FelixError.of(ErrorCode.OVERLOADED, "full"));
    }

    private static List<WatchItem> drain(WatcherQueue q) {
        List<WatchItem> out = new ArrayList<>();
        WatchItem i;
        while ((i = q.poll()) != null) {
            out.add(i);
        }
        return out;
    }

    // ------------------------------------------------------------------ the half-full wake

    @Test
    void theChangeThatFillsHalfTheQueue_asksToWakeTheConsumer_onceUntilItDrainsBelowHalf() {
        WatcherQueue q = new WatcherQueue(new QueueLimits(8, 1 << 20), () -> { });
        List<WatcherQueue.Offer> offers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            offers.add(q.offer(change(i, 1), false));
        }
        assertThat(offers).containsExactly(WatcherQueue.Offer.ADDED_WAKE, WatcherQueue.Offer.ADDED,
                WatcherQueue.Offer.ADDED, WatcherQueue.Offer.ADDED_HALF, WatcherQueue.Offer.ADDED,
                WatcherQueue.Offer.ADDED, WatcherQueue.Offer.ADDED, WatcherQueue.Offer.ADDED);
        assertThat(q.atHalf()).isTrue();

        for (int i = 0; i < 5; i++) {
            q.poll(); // 3 left: below half again
        }
        assertThat(q.atHalf()).isFalse();
        assertThat(q.offer(change(8, 1), false)).as("back at half").isEqualTo(WatcherQueue.Offer.ADDED_HALF);
        assertThat(q.offer(change(9, 1), false)).isEqualTo(WatcherQueue.Offer.ADDED);
    }

    @Test
    void halfTheByteLimit_alsoAsksToWakeTheConsumer() {
        WatcherQueue q = new WatcherQueue(new QueueLimits(100, 10L * UNIT), () -> { });
        assertThat(q.offer(change(0, 2), false)).isEqualTo(WatcherQueue.Offer.ADDED_WAKE);
        assertThat(q.offer(change(1, 2), false)).as("4 of 10 units").isEqualTo(WatcherQueue.Offer.ADDED);
        assertThat(q.offer(change(2, 1), false)).as("5 of 10 units").isEqualTo(WatcherQueue.Offer.ADDED_HALF);
    }

    // ------------------------------------------------------------------ the end marker

    @Test
    void endMarker_isAcceptedWhenFull_comesLast_andNothingIsAcceptedAfterIt() {
        WatcherQueue q = new WatcherQueue(new QueueLimits(2, 1 << 20), () -> { });
        assertThat(q.offer(change(0, 1), false)).isEqualTo(WatcherQueue.Offer.ADDED_WAKE);
        assertThat(q.offer(change(1, 1), false)).isEqualTo(WatcherQueue.Offer.ADDED);
        assertThat(q.offer(change(2, 1), false)).isEqualTo(WatcherQueue.Offer.FULL);

        assertThat(q.end(ended(2))).as("not empty: the consumer already holds a wake-up").isFalse();
        assertThat(q.end(ended(3))).as("one end marker only").isFalse();
        assertThat(q.offer(change(2, 1), false)).isEqualTo(WatcherQueue.Offer.FULL);

        List<WatchItem> items = drain(q);
        assertThat(items).hasSize(3);
        assertThat(items.get(2)).isEqualTo(ended(2));
        assertThat(q.offer(change(2, 1), false)).as("drained, but ended").isEqualTo(WatcherQueue.Offer.FULL);
    }

    @Test
    void endMarker_onAnEmptyQueue_asksToWakeTheConsumer() {
        WatcherQueue q = new WatcherQueue(new QueueLimits(1, 1 << 20), () -> { });

        assertThat(q.end(ended(0))).isTrue();
        assertThat(q.poll()).isEqualTo(ended(0));
        assertThat(q.poll()).isNull();
    }

    @Test
    void endMarker_cancelsAPendingSpaceSignal_theProducerHasNothingMoreToSend() {
        AtomicInteger signals = new AtomicInteger();
        WatcherQueue q = new WatcherQueue(new QueueLimits(2, 1 << 20), signals::incrementAndGet);
        q.offer(change(0, 1), false);
        q.offer(change(1, 1), false);
        assertThat(q.offer(change(2, 1), true)).isEqualTo(WatcherQueue.Offer.FULL);

        q.end(ended(2));

        assertThat(drain(q)).hasSize(3);
        assertThat(signals).hasValue(0);
    }

    @Test
    void clear_endsTheWatch_nothingIsAcceptedAfterIt() {
        WatcherQueue q = new WatcherQueue(new QueueLimits(4, 1 << 20), () -> { });
        q.offer(change(0, 1), false);

        q.clear();

        assertThat(q.isEmpty()).isTrue();
        assertThat(q.offer(change(1, 1), false)).isEqualTo(WatcherQueue.Offer.FULL);
        assertThat(q.end(ended(1))).as("already ended").isFalse();
    }

    // ------------------------------------------------------------------ the snapshot

    @Test
    void snapshot_isChunkedByEntriesAndBytes_comesFirst_andDoesNotCountAgainstTheLimits() {
        WatcherQueue q = new WatcherQueue(new QueueLimits(1, 1), () -> { });
        EntryTable t = new EntryTable(false);
        List<EntryTable.Node> nodes = new ArrayList<>();
        for (int i = 0; i < WatcherQueue.CHUNK_ENTRIES + 3; i++) {
            nodes.add(t.newNode("k" + i, new byte[1], CacheEntry.NEVER));
        }
        nodes.add(t.newNode("big1", new byte[(int) WatcherQueue.CHUNK_BYTES], CacheEntry.NEVER));
        nodes.add(t.newNode("big2", new byte[(int) WatcherQueue.CHUNK_BYTES], CacheEntry.NEVER));
        assertThat(q.addSnapshot(new SharedSnapshot(this, 9, null, nodes.toArray(new EntryTable.Node[0])))).isTrue();
        assertThat(q.offer(change(9, 1), false)).as("not empty (the snapshot), and the one change fills half")
                .isEqualTo(WatcherQueue.Offer.ADDED_HALF);
        List<Integer> sizes = new ArrayList<>();
        WatchItem i;
        while ((i = q.poll()) instanceof SnapshotChunk chunk) {
            sizes.add(chunk.entries().size());
            assertThat(chunk.offset()).isEqualTo(9);
        }
        assertThat(sizes).containsExactly(WatcherQueue.CHUNK_ENTRIES, 3, 1, 1);
        assertThat(((Change) i).offset()).as("changes follow the whole snapshot").isEqualTo(9);
    }
}
