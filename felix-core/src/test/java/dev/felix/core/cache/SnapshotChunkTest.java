package dev.felix.core.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A chunk's cheap hash stays consistent with its content equality. */
class SnapshotChunkTest {

    private static final byte[] V = {1, 2};

    @Test
    void equalChunksHashAlike_andChunksOfOneSnapshotSpreadByTheirFirstKey() {
        SnapshotChunk a = new SnapshotChunk(7, List.of(new CacheEntry("a", V, 0), new CacheEntry("b", V, 0)), false);
        SnapshotChunk same = new SnapshotChunk(7, List.of(new CacheEntry("a", V, 0), new CacheEntry("b", V, 0)), false);
        SnapshotChunk next = new SnapshotChunk(7, List.of(new CacheEntry("c", V, 0), new CacheEntry("d", V, 0)), false);
        SnapshotChunk lastOne = new SnapshotChunk(7, List.of(new CacheEntry("a", V, 0), new CacheEntry("b", V, 0)), true);

        assertThat(same).isEqualTo(a).hasSameHashCodeAs(a);
        assertThat(next).isNotEqualTo(a);
        assertThat(next.hashCode()).isNotEqualTo(a.hashCode());
        assertThat(lastOne.hashCode()).isNotEqualTo(a.hashCode());
        assertThat(new SnapshotChunk(0, List.of(), true)).hasSameHashCodeAs(new SnapshotChunk(0, List.of(), true));
    }
}
