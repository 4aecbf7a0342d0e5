package dev.felix.core.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.core.QueueLimits;
import dev.felix.core.StreamConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** On-disk formats (change records, snapshot files, definitions) and name / config validation. */
class CacheFormatTest {

    @TempDir
    Path tmp;

    // ------------------------------------------------------------------ change records

    @ParameterizedTest
    @EnumSource(Change.Op.class)
    void changeRecord_roundTrips(Change.Op op) {
        byte[] value = op == Change.Op.PUT ? "välue".getBytes(StandardCharsets.UTF_8) : null;
        long expires = op == Change.Op.PUT ? 1_767_225_600_000L : CacheEntry.NEVER;
        Change c = new Change(42, "kéy-\uD83D\uDE00", op, value, expires);
        Change back = ChangeCodec.decode(42, ChangeCodec.encode(c));
        assertThat(back.offset()).isEqualTo(42);
        assertThat(back.key()).isEqualTo(c.key());
        assertThat(back.op()).isEqualTo(op);
        assertThat(back.value()).isEqualTo(value);
        assertThat(back.expiresAtMillis()).isEqualTo(expires);
    }

    @Test
    void changeRecord_layoutIsAsDocumented() {
        byte[] b = ChangeCodec.encode(new Change(0, "k", Change.Op.PUT, new byte[] {7}, 5));
        assertThat(b).containsExactly(1, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1, 'k', 7);
        assertThat(ChangeCodec.decode(0, new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1, 'k'}).value()).isEmpty();
    }

    @Test
    void changeRecord_rejectsWhatItDidNotWrite() {
        byte[] ok = ChangeCodec.encode(new Change(0, "key", Change.Op.DELETE, null, CacheEntry.NEVER));
        List<byte[]> bad = new ArrayList<>();
        bad.add(new byte[5]);
        byte[] version = ok.clone();
        version[0] = 2;
        bad.add(version);
        byte[] op = ok.clone();
        op[1] = 9;
        bad.add(op);
        byte[] keyLen = ok.clone();
        ByteBuffer.wrap(keyLen).putInt(10, 99);
        bad.add(keyLen);
        byte[] zeroKey = ok.clone();
        ByteBuffer.wrap(zeroKey).putInt(10, 0);
        bad.add(zeroKey);
        byte[] trailing = java.util.Arrays.copyOf(ok, ok.length + 1);
        bad.add(trailing);
        byte[] utf8 = ok.clone();
        utf8[14] = (byte) 0xFF;
        bad.add(utf8);
        for (byte[] b : bad) {
            assertThatThrownBy(() -> ChangeCodec.decode(3, b)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("offset 3");
        }
    }

    // ------------------------------------------------------------------ snapshot files

    private static List<EntryTable.Node> nodes(int n, Random r) {
        EntryTable t = new EntryTable(false);
        List<EntryTable.Node> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] v = new byte[r.nextInt(50)];
            r.nextBytes(v);
            out.add(t.newNode("key-" + i + (i % 3 == 0 ? "-ü" : ""), v, i % 2 == 0 ? CacheEntry.NEVER : 1000L + i));
        }
        return out;
    }

    @Test
    void snapshot_roundTripsInOrder_emptyToo() throws IOException {
        List<EntryTable.Node> written = nodes(300, new Random(7));
        Path file = SnapshotFile.write(tmp, 12345, written, 99);
        assertThat(file.getFileName().toString()).isEqualTo("snapshot-00000000000000012345.snap");
        assertThat(SnapshotFile.parseOffset(file.getFileName().toString())).isEqualTo(12345);
        SnapshotFile.Contents c = SnapshotFile.read(file);
        assertThat(c.offset()).isEqualTo(12345);
        assertThat(c.entries()).hasSize(300);
        for (int i = 0; i < 300; i++) {
            assertThat(c.entries().get(i).key()).isEqualTo(written.get(i).key);
            assertThat(c.entries().get(i).value()).isEqualTo(written.get(i).value);
            assertThat(c.entries().get(i).expiresAtMillis()).isEqualTo(written.get(i).expiresAt);
        }
        assertThat(Files.list(tmp).filter(p -> p.toString().endsWith(".tmp"))).isEmpty();
        SnapshotFile.Contents empty = SnapshotFile.read(SnapshotFile.write(tmp, 0, List.of(), 0));
        assertThat(empty.entries()).isEmpty();
        assertThat(SnapshotFile.parseOffset("snapshot-1.snap")).isEqualTo(-1);
        assertThat(SnapshotFile.parseOffset("snapshot-00000000000000012345.snap.tmp")).isEqualTo(-1);
    }

    @Test
    void snapshot_anyFlippedByte_anyTruncation_orTrailingGarbage_makesItInvalid() throws IOException {
        Path file = SnapshotFile.write(tmp, 77, nodes(6, new Random(3)), 5);
        byte[] good = Files.readAllBytes(file);
        Path probe = tmp.resolve("probe.snap");
        for (int pos = 0; pos < good.length; pos++) {
            byte[] bad = good.clone();
            bad[pos] ^= 0x01;
            Files.write(probe, bad);
            int at = pos;
            assertThatThrownBy(() -> SnapshotFile.read(probe)).as("flip at %d", at)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        for (int len = 0; len < good.length; len++) {
            Files.write(probe, java.util.Arrays.copyOf(good, len));
            int at = len;
            assertThatThrownBy(() -> SnapshotFile.read(probe)).as("cut at %d", at)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        Files.write(probe, java.util.Arrays.copyOf(good, good.length + 1));
        assertThatThrownBy(() -> SnapshotFile.read(probe)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("after the trailer");
    }

    // ------------------------------------------------------------------ names, configs, definitions

    @Test
    void cacheName_followsStreamNameRules() {
        assertThat(CacheName.parse("acme/prod/routes.v2")).isEqualTo(new CacheName("acme", "prod", "routes.v2"));
        assertThat(new CacheName("a", "b", "c")).hasToString("a/b/c");
        for (String bad : new String[] {"a/b", "a/b/c/d", "a//c", "a/b/..", "a/b/c:d", "a/b/c d"}) {
            assertThatThrownBy(() -> CacheName.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> new CacheName("t", "ns", "x".repeat(129)))
                .hasMessageContaining("cache name is longer than 128");
    }

    @Test
    void cacheConfig_rejectsBadValues_namingTheSetting() {
        CacheConfig d = CacheConfig.defaults();
        assertThat(d.backing()).isEqualTo(CacheConfig.Backing.MEMORY);
        assertThat(d.defaultTtl()).isNull();
        assertThatThrownBy(() -> d.withMaxEntries(0)).hasMessageContaining("max_entries");
        assertThatThrownBy(() -> d.withDefaultTtl(Duration.ZERO)).hasMessageContaining("default_ttl");
        assertThatThrownBy(() -> d.withDefaultTtl(Duration.ofNanos(10))).hasMessageContaining("default_ttl");
        assertThatThrownBy(() -> d.withChangeRing(0, 1)).hasMessageContaining("change_ring_events");
        assertThatThrownBy(() -> d.withChangeRing(1, 0)).hasMessageContaining("change_ring_bytes");
        assertThatThrownBy(() -> d.withMaxValueBytes(CacheConfig.MAX_VALUE_LIMIT + 1))
                .hasMessageContaining("max_value_bytes");
        assertThatThrownBy(() -> d.withSnapshotEveryChanges(0)).hasMessageContaining("snapshot_every_changes");
        assertThatThrownBy(() -> d.withSegmentBytes(100)).hasMessageContaining("segment_bytes");
        assertThatThrownBy(() -> d.withBacking(null)).hasMessageContaining("backing");
        assertThatThrownBy(() -> CacheConfig.Backing.parse("disk")).hasMessageContaining("memory or log");
        assertThat(d.withFsync(null).fsync()).isEqualTo(StreamConfig.Fsync.PERIODIC);
    }

    @Test
    void meta_roundTrips() throws IOException {
        assertThat(CacheMeta.read(tmp)).isNull();
        new CacheMeta(123, false).write(tmp);
        assertThat(CacheMeta.read(tmp)).isEqualTo(new CacheMeta(123, false));
        new CacheMeta(123, true).write(tmp);
        assertThat(CacheMeta.read(tmp)).isEqualTo(new CacheMeta(123, true));
    }
}
