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
 * Reads never skip: from every offset, with any budget, a read returns exactly the longest prefix of the
 * log that fits (at least one record), checked against a model of what was appended.
 */
class ReadPropertyTest {

    @Property(tries = 60)
    void read_returnsExactlyTheLongestPrefixThatFits(
        @ForAll("batches") final List<List<Integer>> batches,
        @ForAll @IntRange(min = 60, max = 3000) final int segmentBytes,
        @ForAll @IntRange(min = 1, max = 40) final int maxRecords,
        @ForAll @LongRange(min = 0, max = 3000) final long maxBytes) throws IOException {
        final Path dir = Files.createTempDirectory("felix-prop");
        try (StorageRuntime runtime = StorageRuntime.create();
             SegmentedLog log = SegmentedLog.open(dir, LogConfig.builder().segmentBytes(segmentBytes)
                 .indexSpacingBytes(64).fsyncPolicy(FsyncPolicy.none()).build(), runtime)) {
            final List<LogRecord> model = new ArrayList<>();
            for (final List<Integer> sizes : batches) {
                final long first = model.size();
                final List<byte[]> payloads = new ArrayList<>();
                for (int i = 0; i < sizes.size(); i++) {
                    payloads.add(TestSupport.payload(first + i, sizes.get(i)));
                }
                final AppendResult r = log.append(payloads, first * 10);
                assertThat(r.firstOffset()).isEqualTo(first);
                for (int i = 0; i < payloads.size(); i++) {
                    model.add(new LogRecord(first + i, first * 10, payloads.get(i)));
                }
            }
            for (long from = 0; from <= model.size(); from++) {
                final ReadResult.Records got = (ReadResult.Records) log.read(from, maxRecords, maxBytes);
                final List<LogRecord> want = expectedPrefix(model, (int) from, maxRecords, maxBytes);
                assertThat(got.records()).as("read(%d, %d, %d)", from, maxRecords, maxBytes).isEqualTo(want);
                assertThat(got.nextOffset()).isEqualTo(from + want.size());
            }
        } finally {
            TestSupport.deleteTree(dir);
        }
    }

    private static List<LogRecord> expectedPrefix(final List<LogRecord> model, final int from, final int maxRecords,
                                                  final long maxBytes) {
        final List<LogRecord> out = new ArrayList<>();
        long bytes = 0;
        for (int i = from; i < model.size() && out.size() < maxRecords; i++) {
            final int len = model.get(i).payload().length;
            if (!out.isEmpty() && bytes + len > maxBytes) {
                break;
            }
            out.add(model.get(i));
            bytes += len;
        }
        return out;
    }

    @Provide
    Arbitrary<List<List<Integer>>> batches() {
        return Arbitraries.integers().between(0, 400).list().ofMinSize(1).ofMaxSize(6).list().ofMinSize(1).ofMaxSize(40);
    }
}
