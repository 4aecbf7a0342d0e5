package dev.felix.bench.compare;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.felix.bench.common.PeerProcess;
import dev.felix.bench.latency.LatencyBenchmark;
import dev.felix.bench.throughput.ThroughputBenchmark;
import dev.felix.bench.workload.Cell;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole compare pipeline at tiny sizes, against a real in-process Felix broker and, where nats-server
 * is installed, a real NATS server (core and JetStream). Where it is not, the same run must still measure
 * Felix and report NATS as not run, with the reason. No speed is asserted: only that every delivery was
 * counted and sequence-checked, and that the report and the record say so.
 */
class CompareBenchmarkTest {

    private static final String NO_NATS = "nats-server not installed (run bench/peers/install.sh)";

    @TempDir
    Path results;

    @Test
    void tinyCompare_felixAndNats_reportsSequenceCheckedCounts_orNatsSkippedWithTheReason() throws Exception {
        boolean natsInstalled = PeerProcess.which("nats-server").isPresent();
        List<String> systems = List.of("felix", "nats");
        // Latency: 10 unmeasured + 100 measured messages per run, payload 16, fanout 1 and 2, one run.
        LatencyBenchmark.Options latency = new LatencyBenchmark.Options(List.of(16), List.of(1, 2), 10, 100, 1, 0,
                results, Map.of(), systems);
        // Throughput: 1 MiB to each of 2 subscribers, batch 16, 1 MiB in flight for NATS, one run.
        ThroughputBenchmark.Options throughput = new ThroughputBenchmark.Options(List.of(64), List.of(2), 16, 1, 5, 0,
                1, 1, results, Map.of(), systems);
        CompareBenchmark.Options options = new CompareBenchmark.Options(latency, throughput, systems,
                List.of("felix-durable", "jetstream"), results);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream progress = new ByteArrayOutputStream();

        CompareBenchmark.Outcome outcome = CompareBenchmark.run(options,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(progress, true, StandardCharsets.UTF_8));

        String report = out.toString(StandardCharsets.UTF_8);
        assertThat(outcome.ok()).as(report).isTrue();
        long throughputPerSub = throughput.workload().messagesFor(new Cell(64, 2));
        // Every measured system, every cell: 110 messages x fanout at every subscriber, all in order.
        List<String> measured = natsInstalled ? systems : List.of("felix");
        for (String system : measured) {
            assertThat(outcome.latency().find(system, new Cell(16, 1)).sequence()).isEqualTo("ok (110 checked)");
            assertThat(outcome.latency().find(system, new Cell(16, 2)).sequence()).isEqualTo("ok (220 checked)");
            assertThat(outcome.throughput().find(system, new Cell(64, 2)).sequence())
                    .isEqualTo("ok (" + 2 * throughputPerSub + " checked)");
        }
        assertThat(outcome.durableLatency().find("felix-durable", CompareBenchmark.DURABLE_CELL).sequence())
                .isEqualTo("ok (110 checked)");
        assertThat(report).contains("ok (110 checked)").contains("ok (220 checked)")
                .contains("ok (" + 2 * throughputPerSub + " checked)").contains("Aims");
        if (natsInstalled) {
            assertThat(outcome.latency().targets()).containsExactly("felix", "nats");
            assertThat(outcome.durableThroughput().targets()).containsExactly("felix-durable", "jetstream");
            assertThat(report).contains("felix ÷ peer").contains("felix-durable ÷ peer").doesNotContain("not run");
        } else {
            assertThat(outcome.latency().targets()).containsExactly("felix");
            assertThat(outcome.latency().skipped()).containsEntry("nats", NO_NATS);
            assertThat(outcome.durableLatency().skipped()).containsEntry("jetstream", NO_NATS);
            assertThat(report).contains("not run: nats — " + NO_NATS).contains("not run: jetstream — " + NO_NATS);
            assertThat(progress.toString(StandardCharsets.UTF_8)).contains("skipping nats: " + NO_NATS);
        }

        // The record: the JSON and, beside it, the same tables as printed.
        Path json;
        try (Stream<Path> files = Files.list(results)) {
            json = files.filter(p -> p.getFileName().toString().matches("compare-.*\\.json")).findFirst().orElseThrow();
        }
        Path txt = json.resolveSibling(json.getFileName().toString().replace(".json", ".txt"));
        assertThat(Files.readString(txt, StandardCharsets.UTF_8)).isEqualTo(report.substring(0, report.indexOf("results written")));
        JsonNode doc = new ObjectMapper().readTree(json.toFile()).get("result");
        assertThat(doc.at("/latency/all_runs_passed_sequence_checks").asBoolean()).isTrue();
        assertThat(doc.at("/throughput/cells/0/runs/0/sequence_errors").asLong()).isZero();
        assertThat(doc.at("/latency/skipped").has("nats")).isEqualTo(!natsInstalled);
    }
}
