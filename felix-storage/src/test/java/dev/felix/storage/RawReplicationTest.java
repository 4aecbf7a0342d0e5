package dev.felix.storage;

import static dev.felix.storage.TestSupport.payload;
import static dev.felix.storage.TestSupport.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** readRaw ships stored bytes; appendRaw validates every record before writing anything. */
class RawReplicationTest {
    @TempDir
    Path tmp;

    private final StorageRuntime runtime = StorageRuntime.create();
    private SegmentedLog leader;

    @AfterEach
    void close() {
        leader.close();
        runtime.close();
    }

    private static LogConfig config() {
        return LogConfig.builder().segmentBytes(1024).indexSpacingBytes(128).maxPayloadBytes(4096)
            .fsyncPolicy(FsyncPolicy.none()).build();
    }

    /** 50 records of 10..59 bytes, timestamps 1000 + offset, several segments. */
    @BeforeEach
    void fillLeader() {
        leader = SegmentedLog.open(tmp.resolve("leader"), config(), runtime);
        for (int i = 0; i < 50; i++) {
            leader.append(payload(i, 10 + i), 1000 + i);
        }
        assertThat(leader.segmentCount()).isGreaterThan(3);
    }

    /** The stored bytes of records [from, to) taken straight from the segment files. */
    private byte[] storedBytes(final long from, final long to) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (final Path file : TestSupport.segmentFiles(tmp.resolve("leader"))) {
            final byte[] all = TestSupport.read(file);
            for (final long[] r : TestSupport.records(file)) {
                if (r[0] >= from && r[0] < to) {
                    out.write(all, (int) r[1], (int) r[2]);
                }
            }
        }
        return out.toByteArray();
    }

    @Test
    void readRaw_returnsExactlyTheStoredBytes_acrossSegments() {
        final RawReadResult r = leader.readRaw(3, 20, Long.MAX_VALUE);
        assertThat(r).isInstanceOfSatisfying(RawReadResult.Chunk.class, c -> {
            assertThat(c.firstOffset()).isEqualTo(3);
            assertThat(c.nextOffset()).isEqualTo(23);
            assertThat(c.records()).isEqualTo(20);
            assertThat(c.bytes()).isEqualTo(storedBytes(3, 23));
        });
    }

    @Test
    void readRaw_budgetCountsWholeRecords_neverSkips_andAlwaysReturnsOne() {
        final int firstRecord = 28 + 10 + 5; // offset 5: 15-byte payload
        assertThat(leader.readRaw(5, 100, 1)).isInstanceOfSatisfying(RawReadResult.Chunk.class, c -> {
            assertThat(c.records()).isEqualTo(1);
            assertThat(c.bytes()).hasSize(firstRecord);
        });
        final long budget = storedBytes(5, 9).length;
        assertThat(leader.readRaw(5, 100, budget)).isInstanceOfSatisfying(RawReadResult.Chunk.class,
            c -> assertThat(c.nextOffset()).isEqualTo(9));
        assertThat(leader.readRaw(5, 100, budget - 1)).isInstanceOfSatisfying(RawReadResult.Chunk.class,
            c -> assertThat(c.nextOffset()).isEqualTo(8));
        assertThat(leader.readRaw(50, 10, 1000)).isEqualTo(new RawReadResult.Chunk(50, 50, 0, new byte[0]));
        leader.trimBefore(20);
        assertThat(leader.readRaw(0, 10, 1000)).isInstanceOf(ReadResult.Trimmed.class)
            .extracting(RawReadResult::nextOffset).isEqualTo(leader.baseOffset());
    }

    @Test
    void readRaw_thenAppendRaw_reproducesTheLeaderRecordForRecord() {
        try (SegmentedLog follower = SegmentedLog.open(tmp.resolve("follower"), config(), runtime)) {
            long from = 0;
            while (from < leader.tailOffset()) {
                final RawReadResult.Chunk c = (RawReadResult.Chunk) leader.readRaw(from, 6, 300);
                final AppendResult r = follower.appendRaw(from, c.bytes());
                assertThat(r).isEqualTo(new AppendResult(from, c.nextOffset() - 1));
                from = c.nextOffset();
            }
            follower.sync();
            assertThat(readAll(follower)).isEqualTo(readAll(leader)); // offsets, timestamps and payloads
            assertThat(LogTools.verify(tmp.resolve("follower")).clean()).isTrue();
        }
        try (SegmentedLog follower = SegmentedLog.open(tmp.resolve("follower"), config(), runtime)) {
            assertThat(readAll(follower)).isEqualTo(readAll(leader));
        }
    }

    @Test
    void appendRaw_refusesEveryKindOfBadInput_namingTheCheckAndPosition_andWritesNothing() {
        try (SegmentedLog follower = SegmentedLog.open(tmp.resolve("follower"), config(), runtime)) {
            follower.appendRaw(0, storedBytes(0, 1));
            final Map<String, byte[]> before = TestSupport.snapshot(tmp.resolve("follower"));
            final byte[] next = storedBytes(1, 5); // records 1..4
            final int n2 = 28 + 11;

            assertBad(follower, 1, mutate(next, b -> flip(b, n2 + 1)), CorruptionKind.RECORD_HEADER_CHECKSUM, n2);
            assertBad(follower, 1, mutate(next, b -> flip(b, n2 + 30)), CorruptionKind.RECORD_CHECKSUM, n2);
            assertBad(follower, 1, Arrays.copyOf(next, next.length - 3), CorruptionKind.TRUNCATED, next.length - (28 + 14) );
            assertBad(follower, 1, Arrays.copyOf(next, next.length + 5), CorruptionKind.TRUNCATED, next.length);
            assertBad(follower, 1, header(0x7FFF_FFF0, 1), CorruptionKind.RECORD_TOO_LARGE, 0); // bound before use
            assertBad(follower, 1, header(1000, 1), CorruptionKind.TRUNCATED, 0);                // claims more than given
            assertBad(follower, 1, storedBytes(2, 4), CorruptionKind.OFFSET_OUT_OF_ORDER, 0);    // starts at 2, not 1
            final byte[] gap = concat(storedBytes(1, 2), storedBytes(3, 4));
            assertBad(follower, 1, gap, CorruptionKind.OFFSET_OUT_OF_ORDER, 28 + 11);

            assertThatThrownBy(() -> follower.appendRaw(2, storedBytes(2, 3))).isInstanceOfSatisfying(StorageException.class, e -> {
                assertThat(e.code()).isEqualTo(StorageErrorCode.OFFSET_MISMATCH);
                assertThat(e.getMessage()).contains("offset 2").contains("offset 1");
            });
            assertThatThrownBy(() -> follower.appendRaw(1, new byte[0])).isInstanceOfSatisfying(StorageException.class,
                e -> assertThat(e.code()).isEqualTo(StorageErrorCode.INVALID_ARGUMENT));

            assertThat(follower.tailOffset()).isEqualTo(1);
            assertThat(TestSupport.snapshot(tmp.resolve("follower"))).containsExactlyInAnyOrderEntriesOf(before);
            assertThat(follower.appendRaw(1, next).lastOffset()).isEqualTo(4);
            assertThat(readAll(follower)).isEqualTo(readAll(leader).subList(0, 5));
        }
    }

    private static void assertBad(final SegmentedLog log, final long at, final byte[] bytes, final CorruptionKind kind,
                                  final long position) {
        assertThatThrownBy(() -> log.appendRaw(at, bytes)).isInstanceOfSatisfying(StorageException.class, e -> {
            assertThat(e.code()).isEqualTo(StorageErrorCode.INVALID_BATCH);
            assertThat(e.corruption()).hasValue(kind);
            assertThat(e.position()).hasValue(position);
            assertThat(e.getMessage()).contains("byte position " + position).contains(kind.name()).contains("nothing was written");
        });
    }

    /** A record header with a valid header CRC declaring {@code len} payload bytes, and no payload. */
    private static byte[] header(final int len, final long offset) {
        final ByteBuffer b = ByteBuffer.allocate(28);
        b.putInt(0, len).putLong(4, offset).putLong(12, 9);
        final CRC32 crc = new CRC32();
        crc.update(b.array(), 0, 20);
        b.putInt(20, (int) crc.getValue());
        return b.array();
    }

    private static byte[] mutate(final byte[] in, final UnaryOperator<byte[]> f) {
        return f.apply(in.clone());
    }

    private static byte[] flip(final byte[] b, final int at) {
        b[at] ^= 0x21;
        return b;
    }

    private static byte[] concat(final byte[] a, final byte[] b) {
        final byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void damagedRecordsAreNeverShipped_readRawReportsTheRange() {
        final Path file = TestSupport.segmentFiles(tmp.resolve("leader")).get(1);
        final long[] victim = TestSupport.records(file).get(1);
        final byte[] before = storedBytes(0, victim[0]);
        final byte[] after = storedBytes(victim[0] + 1, 50);
        TestSupport.flipByte(file, victim[1] + 30);
        assertThat(leader.readRaw(0, 100, Long.MAX_VALUE)).isInstanceOfSatisfying(RawReadResult.Chunk.class, c -> {
            assertThat(c.nextOffset()).isEqualTo(victim[0]);
            assertThat(c.bytes()).isEqualTo(before);
        });
        assertThat(leader.readRaw(victim[0], 100, Long.MAX_VALUE)).isInstanceOfSatisfying(ReadResult.Corrupted.class, c -> {
            assertThat(c.from()).isEqualTo(victim[0]);
            assertThat(c.to()).isEqualTo(victim[0]);
        });
        assertThat(leader.readRaw(victim[0] + 1, 100, Long.MAX_VALUE)).isInstanceOfSatisfying(RawReadResult.Chunk.class,
            c -> assertThat(c.bytes()).isEqualTo(after));
    }
}
