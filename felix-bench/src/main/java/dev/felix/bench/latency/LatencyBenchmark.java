package dev.felix.bench.latency;

import dev.felix.bench.common.Results;
import dev.felix.bench.system.Targets;
import dev.felix.bench.workload.Cell;
import dev.felix.bench.workload.LatencyWorkload;
import dev.felix.bench.workload.Suite;
import dev.felix.bench.workload.SuiteReport;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code felix bench latency}: closed-loop latency (batch 1, one message in flight, the next publish after
 * the acknowledgement), measured at every subscriber, for each payload and fanout, as the median of
 * several fresh runs (new broker and clients per run). Felix by default; any peer can be added.
 *
 * <p>Every subscriber checks that it receives every sequence number exactly once, in order; a run with
 * a missing, duplicated or reordered delivery fails. Subscribers use the lossless {@code block} policy.
 */
public final class LatencyBenchmark {

    /**
     * @param payloads       payload sizes (bytes after the 16-byte header)
     * @param fanouts        subscriber counts
     * @param warmup         unmeasured messages at the start of each run
     * @param count          measured messages per run
     * @param runs           fresh runs per cell and system
     * @param jitWarmup      messages of one unmeasured run per system before any measuring (0 = none)
     * @param resultsDir     where the JSON result goes (null: not written)
     * @param brokerSettings Felix broker settings (config keys) over the lossless defaults
     * @param systems        systems to run, by name (see {@link Targets#ALL})
     */
    public record Options(List<Integer> payloads, List<Integer> fanouts, int warmup, int count, int runs,
            int jitWarmup, Path resultsDir, Map<String, String> brokerSettings, List<String> systems) {
        public Options {
            if (runs < 1) {
                throw new IllegalArgumentException("runs must be >= 1");
            }
        }

        /** 0/256/1024/4096 B x fanout 1/10, 2,000 + 20,000 messages, 5 runs, 20,000 warm-up, Felix. */
        public static Options defaults() {
            return new Options(List.of(0, 256, 1024, 4096), List.of(1, 10), 2_000, 20_000, 5, 20_000,
                    Path.of("bench/results"), Map.of(), List.of("felix"));
        }

        /** A short run for a first look (not a record). */
        public static Options quick() {
            return new Options(List.of(256), List.of(1, 10), 2_000, 5_000, 3, 20_000, Path.of("bench/results"),
                    Map.of(), List.of("felix"));
        }

        public LatencyWorkload workload() {
            return new LatencyWorkload(new LatencyWorkload.Options(warmup, count, 30), jitWarmup);
        }

        public List<Cell> cells() {
            List<Cell> cells = new ArrayList<>();
            for (int p : payloads) {
                for (int f : fanouts) {
                    cells.add(new Cell(p, f));
                }
            }
            return cells;
        }
    }

    private LatencyBenchmark() {
    }

    public static Suite.Outcome run(Options o, PrintStream out, PrintStream progress) throws Exception {
        Suite.Outcome outcome = Suite.run(o.workload(), Targets.byNames(o.systems(), o.brokerSettings()), o.cells(),
                o.runs(), progress);
        SuiteReport.printMedians(outcome, o.runs(), out);
        SuiteReport.printRatios(outcome, out);
        if (o.resultsDir() != null) {
            Map<String, Object> doc = SuiteReport.toJson(outcome, o.runs());
            doc.put("felix_broker_settings", o.brokerSettings());
            out.println("results written to " + Results.write(o.resultsDir(), "latency", doc));
        }
        return outcome;
    }
}
