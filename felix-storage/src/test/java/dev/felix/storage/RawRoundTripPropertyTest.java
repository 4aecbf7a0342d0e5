package dev.felix.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * A follower that copies its leader with readRaw/appendRaw (any chunking, any segment sizes on either side)
 * ends up with exactly the leader's records: offsets, per-record timestamps and payloads; and each raw read
 * returns exactly the whole records the budget allows (at least one).
 */
class RawRoundTripPropertyTest {

    @Property(tries = 40)
    void followerCopiesTheLeaderExactly(
        @ForAll("batches") final List<List<Integer>> batches,
        @ForAll @IntRange(min = 60, max = 3000) final int leaderSegment,
        @ForAll @IntRange(min = 60, max = 3000) final int followerSegment,
        @ForAll @IntRange(min = 1, max = 40) final int maxRecords,
        @ForAll @LongRange(min = 0, max = 3000) final long maxBytes) throws IOException {
        final Path root = Files.createTempDirectory("felix-raw-prop");
        try (StorageRuntime runtime = StorageRuntime.create();
             SegmentedLog leader = SegmentedLog.open(root.resolve("l"), LogConfig.builder().segmentBytes(leaderSegment)
                 .indexSpacingBytes(64).fsyncPolicy(FsyncPolicy.none()).build(), runtime);
             SegmentedLog follower = SegmentedLog.open(root.resolve("f"), LogConfig.builder().segmentBytes(followerSegment)
                 .indexSpacingBytes(100).fsyncPolicy(FsyncPolicy.none()).build(), runtime)) {
            final List<Integer> sizes = new ArrayList<>();
            for (final List<Integer> batch : batches) {
                final List<byte[]> payloads = new ArrayList<>();
                final long[] ts = new long[batch.size()];
                for (int i = 0; i < batch.size(); i++) {
                    final long offset = sizes.size();
                    payloads.add(TestSupport.payload(offset, batch.get(i)));
                    ts[i] = 7 * offset + batch.get(i);
                    sizes.add(batch.get(i));
                }
                leader.appendAt(leader.tailOffset(), payloads, ts);
            }
            long from = 0;
            while (from < leader.tailOffset()) {
                final RawReadResult.Chunk c = (RawReadResult.Chunk) leader.readRaw(from, maxRecords, maxBytes);
                long want = 0;
                int n = 0;
                while (from + n < sizes.size() && n < maxRecords
                    && (n == 0 || want + 28 + sizes.get((int) from + n) <= maxBytes)) {
                    want += 28 + sizes.get((int) from + n);
                    n++;
                }
                assertThat(c.records()).as("readRaw(%d, %d, %d)", from, maxRecords, maxBytes).isEqualTo(n);
                assertThat(c.bytes()).hasSize((int) want);
                follower.appendRaw(from, c.bytes());
                from = c.nextOffset();
            }
            assertThat(TestSupport.readAll(follower)).isEqualTo(TestSupport.readAll(leader));
        } finally {
            TestSupport.deleteTree(root);
        }
    }

    @Provide
    Arbitrary<List<List<Integer>>> batches() {
        return Arbitraries.integers().between(0, 400).list().ofMinSize(1).ofMaxSize(6).list().ofMinSize(1).ofMaxSize(30);
    }
}
