package dev.felix.bench.watch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The workload end to end at a tiny size. Speed is never asserted: only that it counts and checks. */
@Timeout(120)
class WatchBenchmarkTest {

    private static final PrintStream QUIET = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

    @TempDir
    Path results;

    private WatchBenchmark.Options tiny(List<String> systems) {
        return WatchBenchmark.Options.defaults()
                .with(systems, List.of(3), 50, 1, 200, results, Map.of())
                .timed(Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofMillis(300), 2);
    }

    @Test
    void felix_threeMirrors_convergeWithOneSamplePerWriteAndMirror_andResultsAreWritten() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        WatchBenchmark.Report report = WatchBenchmark.run(tiny(List.of("felix")),
                new PrintStream(out, true, StandardCharsets.UTF_8), QUIET);

        WatchBenchmark.Cell cell = report.find("felix", 3);
        assertThat(cell.runs()).hasSize(1);
        WatchWorkload.Run run = cell.runs().get(0);
        assertThat(run.ok()).as(String.valueOf(run.failure())).isTrue();
        assertThat(report.ok()).isTrue();
        assertThat(run.detail()).containsEntry("wrong_keys", 0L).containsEntry("foreign_values", 0L);
        long writes = ((Number) run.detail().get("writes")).longValue();
        assertThat(writes).isGreaterThan(50 + 50); // preload + at least half the latency phase
        assertThat(run.detail().get("samples")).isEqualTo(writes * 3);
        assertThat(run.detail().get("latency_samples"))
                .isEqualTo(((Number) run.detail().get("latency_writes")).longValue() * 3);
        assertThat(run.values()).containsKeys("p50_us", "p99_us", "p999_us", "all_p99_us", "updates_per_s",
                "updates_x_watchers_per_s", "cpu_s_per_m");
        assertThat(run.values().get("p99_us")).isPositive();

        assertThat(report.json()).exists().hasFileName(report.json().getFileName().toString());
        assertThat(report.json().getFileName().toString()).startsWith("watch-").endsWith(".json");
        String json = Files.readString(report.json());
        assertThat(json).contains("\"benchmark\" : \"watch\"", "\"wrong_keys\" : 0", "\"cells\"");
        assertThat(report.text()).exists();
        assertThat(Files.readString(report.text())).isEqualTo(report.table());
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("watchers = 3", "felix");
    }

    @Test
    void aPeerWhoseBinaryIsMissing_isReportedAsSkippedWithTheReason() throws Exception {
        WatchBenchmark.Options o = tiny(List.of("etcd", "redis"))
                .withBinaries(Map.of("etcd", "no-such-etcd-binary", "redis", "no-such-redis-binary"));
        WatchBenchmark.Report report = WatchBenchmark.run(o, QUIET, QUIET);

        assertThat(report.cells()).isEmpty();
        assertThat(report.skipped()).containsOnlyKeys("etcd", "redis");
        assertThat(report.skipped().get("etcd")).contains("no-such-etcd-binary not installed", "bench/peers/install.sh");
        assertThat(report.table()).contains("etcd       skipped: no-such-etcd-binary not installed");
        assertThat(Files.readString(report.json())).contains("no-such-redis-binary not installed");
    }
}
