package dev.felix.core.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.QueueLimits;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Sanity suites of the writer's building blocks: watcher queue (a matrix of limits), change ring, entry table. */
class CacheStructuresTest {

    private static Change change(long offset, int valueBytes) {
        return new Change(offset, "k" + offset, Change.Op.PUT, new byte[valueBytes], CacheEntry.NEVER);
    }

    static Stream<QueueLimits> limits() {
        return Stream.of(new QueueLimits(1, 1 << 20), new QueueLimits(2, 1 << 20), new QueueLimits(8, 1 << 20),
                new QueueLimits(1000, 200), new QueueLimits(1000, 1000));
    }

    @ParameterizedTest
    @MethodSource("limits")
    void watcherQueue_isFifo_boundedInChangesAndBytes_emptyTakesAnything(QueueLimits l) {
        AtomicInteger space = new AtomicInteger();
        WatcherQueue q = new WatcherQueue(l, space::incrementAndGet);
        assertThat(q.offer(change(0, 5000), false)).as("empty queue takes any change")
                .isEqualTo(WatcherQueue.Offer.ADDED_WAKE);
        assertThat(((Change) q.poll()).offset()).isZero();
        assertThat(q.poll()).isNull();
        long offset = 1;
        int accepted = 0;
        while (q.offer(change(offset, 40), true) != WatcherQueue.Offer.FULL) {
            offset++;
            accepted++;
            assertThat(accepted).isLessThanOrEqualTo(l.events());
        }
        long weight = ChangeRing.weight(change(1, 40));
        assertThat(accepted).isEqualTo((int) Math.max(1, Math.min(l.events(), l.bytes() / weight)));
        assertThat(q.end(new WatchEnded(offset, FelixError.of(ErrorCode.OVERLOADED, "full")))).isFalse();
        assertThat(q.offer(change(offset + 1, 1), false)).as("the end marker is always accepted, then nothing")
                .isEqualTo(WatcherQueue.Offer.FULL);
        List<WatchItem> out = new ArrayList<>();
        WatchItem i;
        while ((i = q.poll()) != null) {
            out.add(i);
        }
        assertThat(out.get(out.size() - 1)).isInstanceOf(WatchEnded.class);
        assertThat(out.subList(0, accepted)).extracting(x -> ((Change) x).offset())
                .isSorted().doesNotHaveDuplicates().first().isEqualTo(1L);
    }

    @Test
    void watcherQueue_snapshotIsChunkedByEntriesAndBytes_andDoesNotCountAgainstTheLimits() {
        WatcherQueue q = new WatcherQueue(new QueueLimits(1, 1), () -> { });
        EntryTable t = new EntryTable(false);
        List<EntryTable.Node> nodes = new ArrayList<>();
        for (int i = 0; i < WatcherQueue.CHUNK_ENTRIES + 3; i++) {
            nodes.add(t.newNode("k" + i, new byte[1], CacheEntry.NEVER));
        }
        nodes.add(t.newNode("big1", new byte[(int) WatcherQueue.CHUNK_BYTES], CacheEntry.NEVER));
        nodes.add(t.newNode("big2", new byte[(int) WatcherQueue.CHUNK_BYTES], CacheEntry.NEVER));
        assertThat(q.addSnapshot(9, nodes.toArray(new EntryTable.Node[0]))).isTrue();
        assertThat(q.offer(change(9, 1), false)).isEqualTo(WatcherQueue.Offer.ADDED);
        List<Integer> sizes = new ArrayList<>();
        WatchItem i;
        while ((i = q.poll()) instanceof SnapshotChunk chunk) {
            sizes.add(chunk.entries().size());
            assertThat(chunk.offset()).isEqualTo(9);
        }
        assertThat(sizes).containsExactly(WatcherQueue.CHUNK_ENTRIES, 3, 1, 1);
        assertThat(((Change) i).offset()).as("changes follow the whole snapshot").isEqualTo(9);
    }

    @Test
    void watcherQueue_signalsSpaceOnceDrainedToHalf() {
        AtomicInteger space = new AtomicInteger();
        WatcherQueue q = new WatcherQueue(new QueueLimits(4, 1 << 20), space::incrementAndGet);
        for (int i = 0; i < 4; i++) {
            q.offer(change(i, 1), false);
        }
        assertThat(q.offer(change(4, 1), true)).isEqualTo(WatcherQueue.Offer.FULL);
        q.poll();
        assertThat(space.get()).isZero();
        q.poll();
        assertThat(space.get()).isEqualTo(1);
        q.poll();
        assertThat(space.get()).isEqualTo(1);
    }

    @Test
    void changeRing_keepsAContiguousWindow_boundedInEventsAndBytes_alwaysTheNewest() {
        ChangeRing r = new ChangeRing(4, 1 << 20, 10);
        assertThat(r.oldest(10)).isEqualTo(10);
        for (long o = 10; o < 20; o++) {
            r.add(change(o, 1));
        }
        assertThat(r.oldest(20)).isEqualTo(16);
        assertThat(r.get(15)).isNull();
        assertThat(r.get(16).offset()).isEqualTo(16);
        assertThat(r.get(19).offset()).isEqualTo(19);
        assertThat(r.get(20)).isNull();
        assertThatThrownBy(() -> r.add(change(25, 1))).isInstanceOf(IllegalStateException.class);
        ChangeRing bytes = new ChangeRing(100, 10, 0);
        bytes.add(change(0, 1000));
        assertThat(bytes.size()).as("the newest change stays however large").isEqualTo(1);
        bytes.add(change(1, 1000));
        assertThat(bytes.oldest(2)).isEqualTo(1);
    }

    @Test
    void entryTable_deferredChangesAreInvisibleUntilPublished() {
        EntryTable t = new EntryTable(true);
        EntryTable.Node a = t.newNode("a", new byte[] {1}, CacheEntry.NEVER);
        t.stagePut(a, 0);
        assertThat(t.lookup("a")).isSameAs(a);
        assertThat(t.view).isEmpty();
        EntryTable.Node a2 = t.newNode("a", new byte[] {2}, CacheEntry.NEVER);
        t.stagePut(a2, 1);
        t.stageRemove(a2, 2);
        assertThat(t.lookup("a")).isNull();
        assertThat(t.size()).isZero();
        t.publish("a", a, 0);
        assertThat(t.view.get("a")).isSameAs(a);
        assertThat(t.pendingCount()).isEqualTo(1);
        assertThat(t.viewInLruOrder()).containsExactly(a);
        t.publish("a", a2, 1);
        t.publish("a", null, 2);
        assertThat(t.view).isEmpty();
        assertThat(t.pendingCount()).isZero();
    }

    @Test
    void readBuffer_drainsInOrder_andDropsWhenFull() {
        ReadBuffer b = new ReadBuffer();
        EntryTable t = new EntryTable(false);
        List<EntryTable.Node> nodes = new ArrayList<>();
        for (int i = 0; i < ReadBuffer.CAPACITY + 10; i++) {
            EntryTable.Node n = t.newNode("k" + i, new byte[0], CacheEntry.NEVER);
            nodes.add(n);
            b.record(n);
        }
        List<EntryTable.Node> drained = new ArrayList<>();
        b.drain(drained::add);
        assertThat(drained).containsExactlyElementsOf(nodes.subList(0, ReadBuffer.CAPACITY));
        b.record(nodes.get(0));
        drained.clear();
        b.drain(drained::add);
        assertThat(drained).containsExactly(nodes.get(0));
    }
}
