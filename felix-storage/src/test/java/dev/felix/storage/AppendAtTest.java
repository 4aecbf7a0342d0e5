package dev.felix.storage;

import static dev.felix.storage.TestSupport.payload;
import static dev.felix.storage.TestSupport.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** appendAt: a follower writes exactly what its leader assigned (offset and per-record timestamps). */
class AppendAtTest {
    @TempDir
    Path tmp;

    private final StorageRuntime runtime = StorageRuntime.create();

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private static LogConfig config() {
        return LogConfig.builder().segmentBytes(1024).indexSpacingBytes(128).fsyncPolicy(FsyncPolicy.onCommit()).build();
    }

    @Test
    void appendAt_writesAtTheTail_withOneTimestampPerRecord_acrossRollsAndReopen() throws Exception {
        final Path dir = tmp.resolve("follower");
        final Random rnd = new Random(7);
        final List<LogRecord> expected = new ArrayList<>();
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            long next = 0;
            for (int b = 0; b < 60; b++) {
                final int n = 1 + rnd.nextInt(4);
                final List<byte[]> payloads = new ArrayList<>();
                final long[] ts = new long[n];
                for (int i = 0; i < n; i++) {
                    payloads.add(payload(next + i, rnd.nextInt(90)));
                    ts[i] = 5_000_000L - 13 * (next + i); // not one value per batch, not even ascending
                    expected.add(new LogRecord(next + i, ts[i], payloads.get(i)));
                }
                final AppendResult r = log.appendAt(next, payloads, ts);
                assertThat(r).isEqualTo(new AppendResult(next, next + n - 1));
                log.flush(r.nextOffset()).get(10, TimeUnit.SECONDS);
                assertThat(log.durableOffset()).isGreaterThanOrEqualTo(r.nextOffset());
                next += n;
            }
            assertThat(log.segmentCount()).isGreaterThan(3);
            assertThat(readAll(log)).isEqualTo(expected);
        }
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            assertThat(readAll(log)).isEqualTo(expected);
        }
    }

    @Test
    void appendAt_recordsFromALeaderRead_keepTheirOffsetsAndTimestamps() {
        try (SegmentedLog leader = SegmentedLog.open(tmp.resolve("leader"), config(), runtime);
             SegmentedLog follower = SegmentedLog.open(tmp.resolve("follower"), config(), runtime)) {
            for (int i = 0; i < 40; i++) {
                leader.append(List.of(payload(i, 30), payload(i + 1000, 3)), 100 + i);
            }
            long from = 0;
            while (from < leader.tailOffset()) {
                final List<LogRecord> got = leader.read(from, 7, 10_000).recordsOrThrow();
                assertThat(follower.appendAt(from, got).firstOffset()).isEqualTo(from);
                from += got.size();
            }
            assertThat(readAll(follower)).isEqualTo(readAll(leader));
        }
    }

    @Test
    void appendAt_elsewhereThanTheTail_isRefusedNamingBothOffsets_andWritesNothing() {
        final Path dir = tmp.resolve("log");
        try (SegmentedLog log = SegmentedLog.open(dir, config(), runtime)) {
            for (int i = 0; i < 5; i++) {
                log.append(payload(i, 20), i);
            }
            log.sync();
            final Map<String, byte[]> before = TestSupport.snapshot(dir);
            final long failuresBefore = runtime.metrics().appendFailures();
            for (final long wrong : new long[] {0, 3, 4, 6, 1000}) {
                assertThatThrownBy(() -> log.appendAt(wrong, List.of(payload(9, 9)), new long[] {1}))
                    .isInstanceOfSatisfying(StorageException.class, e -> {
                        assertThat(e.code()).isEqualTo(StorageErrorCode.OFFSET_MISMATCH);
                        assertThat(e.requested()).hasValue(wrong);
                        assertThat(e.getMessage()).contains("offset " + wrong).contains("tail").contains("offset 5")
                            .contains("nothing was written");
                    });
            }
            assertThat(runtime.metrics().appendFailures()).isEqualTo(failuresBefore + 5);
            assertThat(log.tailOffset()).isEqualTo(5);
            assertThat(TestSupport.snapshot(dir)).containsExactlyInAnyOrderEntriesOf(before);
            assertThat(log.appendAt(5, List.of(payload(5, 20)), new long[] {77}).firstOffset()).isEqualTo(5);
            assertThat(readAll(log).get(5)).isEqualTo(new LogRecord(5, 77, payload(5, 20)));
        }
    }

    @Test
    void appendAt_badArguments_areInvalidArguments() {
        try (SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), config(), runtime)) {
            assertThatThrownBy(() -> log.appendAt(0, List.of(payload(0, 1), payload(1, 1)), new long[] {1}))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.code()).isEqualTo(StorageErrorCode.INVALID_ARGUMENT);
                    assertThat(e.getMessage()).contains("2 payloads").contains("1 timestamps");
                });
            assertThatThrownBy(() -> log.appendAt(-1, List.of(payload(0, 1)), new long[] {1}))
                .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.code()).isEqualTo(StorageErrorCode.INVALID_ARGUMENT));
            assertThatThrownBy(() -> log.appendAt(0, List.of(new LogRecord(0, 1, new byte[1]), new LogRecord(2, 1, new byte[1]))))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.code()).isEqualTo(StorageErrorCode.INVALID_ARGUMENT);
                    assertThat(e.getMessage()).contains("offset 2").contains("expected 1");
                });
            assertThat(log.tailOffset()).isZero();
        }
    }
}
