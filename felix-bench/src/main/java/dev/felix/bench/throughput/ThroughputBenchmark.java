package dev.felix.bench.throughput;

import dev.felix.bench.common.Results;
import dev.felix.bench.system.Targets;
import dev.felix.bench.workload.Cell;
import dev.felix.bench.workload.Suite;
import dev.felix.bench.workload.SuiteReport;
import dev.felix.bench.workload.ThroughputWorkload;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code felix bench throughput}: lossless sustained throughput (batch 64, block policies end to end),
 * every delivery counted and sequence-checked at every subscriber; delivered msg/s, MB/s and MB/s per
 * subscriber as the median of several fresh runs, with CPU per million deliveries.
 */
public final class ThroughputBenchmark {

    /**
     * @param payloads         payload sizes (bytes after the 16-byte header)
     * @param fanouts          subscriber counts
     * @param batch            messages per publish
     * @param mibPerSubscriber run size per subscriber (MiB incl. header)
     * @param maxSeconds       time cap per run past the warm-up
     * @param warmupSeconds    unmeasured warm-up on the first cell, per system, at least this long (every later cell:
     *                         one warm-up run)
     * @param windowMib        in-flight bound for peers without backpressure (MiB)
     * @param runs             fresh runs per cell and system
     * @param resultsDir       where the JSON result goes (null: not written)
     * @param brokerSettings   Felix broker settings over the lossless defaults
     * @param systems          systems to run (see {@link Targets#ALL})
     */
    public record Options(List<Integer> payloads, List<Integer> fanouts, int batch, long mibPerSubscriber,
            int maxSeconds, int warmupSeconds, long windowMib, int runs, Path resultsDir,
            Map<String, String> brokerSettings, List<String> systems) {
        public Options {
            if (runs < 1) {
                throw new IllegalArgumentException("runs must be >= 1");
            }
            if (warmupSeconds < 0) {
                throw new IllegalArgumentException("warm-up seconds must not be negative");
            }
        }

        /**
         * 0/256/1024/4096 B x fanout 1/10, batch 64, 256 MiB per subscriber or 30 s, 20 s of warm-up, 5 runs,
         * Felix.
         */
        public static Options defaults() {
            return new Options(List.of(0, 256, 1024, 4096), List.of(1, 10), 64, 256, 30, DEFAULT_WARMUP_SECONDS, 8, 5,
                    Path.of("bench/results"), Map.of(), List.of("felix"));
        }

        /** A short run for a first look: too small to be past every buffer, and flagged so. */
        public static Options quick() {
            return new Options(List.of(1024), List.of(1, 10), 64, 32, 5, QUICK_WARMUP_SECONDS, 8, 3,
                    Path.of("bench/results"), Map.of(), List.of("felix"));
        }

        /** Warm-up on the first cell of a full run: the JIT settles within it on 2 busy cores. */
        public static final int DEFAULT_WARMUP_SECONDS = 20;
        /** Warm-up on the first cell of a quick run. */
        public static final int QUICK_WARMUP_SECONDS = 5;

        public ThroughputWorkload workload() {
            return new ThroughputWorkload(new ThroughputWorkload.Options(batch, mibPerSubscriber, maxSeconds,
                    windowMib << 20, 30, warmupSeconds));
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

    private ThroughputBenchmark() {
    }

    public static Suite.Outcome run(Options o, PrintStream out, PrintStream progress) throws Exception {
        Suite.Outcome outcome = Suite.run(o.workload(), Targets.byNames(o.systems(), o.brokerSettings()), o.cells(),
                o.runs(), progress);
        SuiteReport.printMedians(outcome, o.runs(), out);
        SuiteReport.printRatios(outcome, out);
        printUndersized(outcome, out);
        if (o.resultsDir() != null) {
            Map<String, Object> doc = SuiteReport.toJson(outcome, o.runs());
            doc.put("felix_broker_settings", o.brokerSettings());
            out.println("results written to " + Results.write(o.resultsDir(), "throughput", doc));
        }
        return outcome;
    }

    /** Says which runs were too small to be past every buffer (their rate may be buffering). */
    public static void printUndersized(Suite.Outcome outcome, PrintStream out) {
        long small = outcome.cells().stream().flatMap(c -> c.runs().stream())
                .filter(r -> Boolean.FALSE.equals(r.detail().get("sized_past_buffers"))).count();
        if (small > 0) {
            out.println("  note: " + small + " run(s) delivered under "
                    + (ThroughputWorkload.VALID_BYTES_PER_SUBSCRIBER >> 20) + " MiB per subscriber in under "
                    + (int) ThroughputWorkload.VALID_SECONDS + " s: indicative only (buffers may absorb part of it)");
        }
    }
}
