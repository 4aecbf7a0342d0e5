package dev.felix.bench.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The storage benchmark runs end to end at a tiny size and verifies what it timed. No speed is asserted. */
class StorageBenchmarkTest {

    @Test
    void tinyRun_verifiesEveryRun_andWritesTheResultFile(@TempDir final Path tmp) throws Exception {
        final StorageBenchmark.Options o = StorageBenchmark.Options.parse("--fsync=none,periodic,on_commit",
            "--writers=1,3", "--batch=1,4", "--records=600", "--warmup=50", "--max-seconds=3", "--floor-ms=100",
            "--recovery-mb=1", "--dir=" + tmp.resolve("data"), "--out=" + tmp.resolve("out"));
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final StorageBenchmark.Report report = StorageBenchmark.run(o, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        assertThat(report.runs()).hasSize(12).allSatisfy(r -> assertThat(r.verified()).isTrue());
        assertThat(report.recovery().records()).isPositive();
        assertThat(report.aims()).hasSize(3);
        assertThat(Files.readString(report.resultFile())).contains("\"records_per_second\"").contains("fsync_floor_us");
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("fsync floor").contains("on_commit");
        try (var s = Files.list(tmp.resolve("data"))) {
            assertThat(s.count()).as("benchmark data removed").isZero();
        }
    }

    @Test
    void badOptions_areRejectedWithUsage() {
        assertThatThrownBy(() -> StorageBenchmark.Options.parse("--fsync=sometimes"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sometimes");
        assertThatThrownBy(() -> StorageBenchmark.Options.parse("--nope=1"))
            .hasMessageContaining("unknown option").hasMessageContaining("--writers");
    }
}
