package dev.felix.core.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Sanity tests of the cache writer's building blocks: change ring, entry table, read buffer. (The watcher queue
 * is in the core's shared queue sanity suite: {@link WatcherQueueSanityTest}.)
 */
class CacheStructuresTest {

    private static Change change(long offset, int valueBytes) {
        return new Change(offset, "k" + offset, Change.Op.PUT, new byte[valueBytes], CacheEntry.NEVER);
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
