package dev.felix.storage;

import static dev.felix.storage.TestSupport.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** inspect/verify: read-only, report (never throw) on corrupt logs, name file and byte position. */
class LogToolsTest {
    @TempDir
    Path tmp;

    private final StorageRuntime runtime = StorageRuntime.create();

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private Path makeLog(final String name, final int records) {
        final Path dir = new LogId("acme", "default", name, 0).resolve(tmp.resolve("root"));
        try (SegmentedLog log = SegmentedLog.open(dir, LogConfig.builder().segmentBytes(2048).indexSpacingBytes(300)
            .fsyncPolicy(FsyncPolicy.none()).build(), runtime)) {
            for (int i = 0; i < records; i++) {
                log.append(payload(i, 100), i);
            }
        }
        return dir;
    }

    @Test
    void inspect_listsSegmentsOfEveryLogUnderARoot() {
        final Path a = makeLog("a", 50);
        makeLog("b", 3);
        final LogTools.Inspection inspection = LogTools.inspect(tmp.resolve("root"));
        assertThat(inspection.logs()).hasSize(2);
        final LogTools.LogInfo info = inspection.logs().get(0);
        assertThat(info.directory()).isEqualTo(a);
        assertThat(info.baseOffset()).isZero();
        assertThat(info.tailOffset()).isEqualTo(50);
        assertThat(info.records()).isEqualTo(50);
        long expectedBase = 0;
        for (final LogTools.SegmentInfo s : info.segments()) {
            assertThat(s.baseOffset()).isEqualTo(expectedBase);
            assertThat(s.lastOffset()).isEqualTo(expectedBase + s.recordCount() - 1);
            assertThat(s.bytes()).isEqualTo(s.file().toFile().length());
            assertThat(s.indexEntries()).isPositive();
            assertThat(s.problem()).isEmpty();
            expectedBase += s.recordCount();
        }
        assertThat(inspection.render()).contains("00000000000000000000.log").contains("50 records");
        assertThat(LogTools.inspect(a).logs()).hasSize(1);
    }

    @Test
    void verify_cleanLog() {
        final Path dir = makeLog("clean", 50);
        final LogTools.Verification v = LogTools.verify(dir);
        assertThat(v.clean()).isTrue();
        assertThat(v.records()).isEqualTo(50);
        assertThat(v.indexIssues()).isEmpty();
        assertThat(v.render()).startsWith("CLEAN");
    }

    @Test
    void verify_reportsEveryProblemWithFileAndPosition_andChangesNothing() throws Exception {
        final Path dir = makeLog("bad", 60);
        final List<Path> files = TestSupport.segmentFiles(dir);
        final List<long[]> first = TestSupport.records(files.get(0));
        TestSupport.flipByte(files.get(0), first.get(2)[1] + 40);   // payload: checksum
        TestSupport.flipByte(files.get(0), first.get(5)[1] + 40);   // another one in the same segment
        TestSupport.flipByte(files.get(1), 3);                       // header magic of segment 1
        final Path last = files.get(files.size() - 1);
        final List<long[]> lastRecs = TestSupport.records(last);
        TestSupport.truncateFile(last, lastRecs.get(lastRecs.size() - 1)[1] + 10); // torn tail
        Files.write(dir.resolve(SegmentFiles.indexName(2)), new byte[] {9, 9});
        final Map<String, byte[]> before = TestSupport.snapshot(dir);

        final LogTools.Verification v = LogTools.verify(dir);
        assertThat(v.clean()).isFalse();
        assertThat(v.problems()).extracting(LogTools.Problem::file, LogTools.Problem::position, LogTools.Problem::code)
            .containsExactly(
                org.assertj.core.groups.Tuple.tuple(files.get(0), first.get(2)[1], "RECORD_CHECKSUM"),
                org.assertj.core.groups.Tuple.tuple(files.get(0), first.get(5)[1], "RECORD_CHECKSUM"),
                org.assertj.core.groups.Tuple.tuple(files.get(1), 0L, "BAD_MAGIC"),
                org.assertj.core.groups.Tuple.tuple(last, lastRecs.get(lastRecs.size() - 1)[1], "TRUNCATED"));
        assertThat(v.indexIssues()).extracting(LogTools.Problem::file).containsExactly(dir.resolve(SegmentFiles.indexName(2)));
        assertThat(v.render()).startsWith("CORRUPT").contains(files.get(1).toString());
        // the segment after the unreadable header is still checked, and checksums past a bad record too
        assertThat(v.records()).isEqualTo(60 - 2 - TestSupport.records(files.get(1)).size() - 1);

        final LogTools.Inspection inspection = LogTools.inspect(dir);
        assertThat(inspection.logs().get(0).segments().get(1).problem()).hasValueSatisfying(p -> assertThat(p).contains("BAD_MAGIC"));
        assertThat(TestSupport.snapshot(dir)).containsExactlyInAnyOrderEntriesOf(before);
    }

    @Test
    void verify_detectsABrokenOffsetChain() throws Exception {
        final Path dir = makeLog("chain", 60);
        Files.delete(TestSupport.segmentFiles(dir).get(1));
        final LogTools.Verification v = LogTools.verify(dir);
        assertThat(v.problems()).singleElement().satisfies(p -> {
            assertThat(p.code()).isEqualTo("OFFSET_OUT_OF_ORDER");
            assertThat(p.position()).isEqualTo(8);
        });
    }

    @Test
    void notADirectory_isAnInvalidArgument() {
        assertThatThrownBy(() -> LogTools.verify(tmp.resolve("nope"))).isInstanceOfSatisfying(StorageException.class,
            e -> assertThat(e.code()).isEqualTo(StorageErrorCode.INVALID_ARGUMENT));
    }
}
