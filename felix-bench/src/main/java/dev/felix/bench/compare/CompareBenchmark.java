package dev.felix.bench.compare;

import dev.felix.bench.common.Results;
import dev.felix.bench.latency.LatencyBenchmark;
import dev.felix.bench.system.Targets;
import dev.felix.bench.throughput.ThroughputBenchmark;
import dev.felix.bench.workload.Cell;
import dev.felix.bench.workload.CellSummary;
import dev.felix.bench.workload.LatencyWorkload;
import dev.felix.bench.workload.Suite;
import dev.felix.bench.workload.SuiteReport;
import dev.felix.bench.workload.Workload;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code felix bench compare}: Felix and every available peer (NATS core and Redis pub/sub, each with and
 * without TLS) through the same latency and throughput workloads, runs interleaved system by system,
 * then Felix ÷ peer for every figure and Felix's aims checked against the measurements; then a durable
 * section (Felix durable streams vs NATS JetStream file storage: the same latency and throughput workloads
 * at 1 KiB to one consumer). A peer whose binary is missing is skipped with a note on how to install it.
 *
 * <p>Every figure is the median of fresh runs (new broker, new connections per run) and comes with worst ÷
 * median; every delivery a run times is counted and sequence-checked at every subscriber, and a run that
 * lost, repeated or reordered one is failed and left out of the medians. The tables are printed and kept
 * as {@code compare-<time>.txt} beside the full record, {@code compare-<time>.json}.
 */
public final class CompareBenchmark {

    /**
     * @param latency    latency options (their {@code systems} are replaced by {@code systems})
     * @param throughput throughput options (likewise)
     * @param systems    systems to compare, Felix first
     * @param durable    durable systems for the durable append + consume section (Felix first; empty: skip)
     * @param resultsDir where {@code compare-<time>.json} and its {@code .txt} go (null: not written)
     */
    public record Options(LatencyBenchmark.Options latency, ThroughputBenchmark.Options throughput,
            List<String> systems, List<String> durable, Path resultsDir) {

        /**
         * The record: latency at 0/256/1024/4096 B x fanout 1/10 (2,000 + 20,000 messages per run);
         * throughput at 256/1024/4096 B x fanout 1/10, 128 MiB per subscriber (past every buffer) or 30 s;
         * 5 runs per cell and system; every pub/sub and durable system.
         */
        public static Options defaults() {
            LatencyBenchmark.Options l = LatencyBenchmark.Options.defaults();
            ThroughputBenchmark.Options t = ThroughputBenchmark.Options.defaults();
            return new Options(
                    new LatencyBenchmark.Options(l.payloads(), l.fanouts(), l.warmup(), l.count(), 5, l.jitWarmup(),
                            RESULTS, Map.of(), Targets.ALL),
                    new ThroughputBenchmark.Options(List.of(256, 1024, 4096), t.fanouts(), t.batch(), 128,
                            30, t.warmupSeconds(), t.windowMib(), 5, RESULTS, Map.of(), Targets.ALL),
                    Targets.ALL, Targets.DURABLE, RESULTS);
        }

        /**
         * Under 5 minutes on 2 cores even with other work on the machine: 256 B latency (500 + 2,500
         * messages) and 1 KiB throughput (16 MiB per subscriber or 3 s) at fanout 1 and 10, 3 runs each; the
         * durable section with {@code felix-durable} and {@code jetstream} only. Too small to be past every
         * buffer: the throughput rows are flagged as indicative.
         */
        public static Options quick() {
            return new Options(
                    new LatencyBenchmark.Options(List.of(256), List.of(1, 10), 500, 2_500, 3, 3_000, RESULTS,
                            Map.of(), Targets.ALL),
                    new ThroughputBenchmark.Options(List.of(1024), List.of(1, 10), 64, 16, 3,
                            ThroughputBenchmark.Options.QUICK_WARMUP_SECONDS, 8, 3, RESULTS,
                            Map.of(), Targets.ALL),
                    Targets.ALL, List.of("felix-durable", "jetstream"), RESULTS);
        }
    }

    private static final Path RESULTS = Path.of("bench/results");

    /** Every outcome (the durable ones null when skipped). */
    public record Outcome(Suite.Outcome latency, Suite.Outcome throughput, Suite.Outcome durableLatency,
            Suite.Outcome durableThroughput) {
        public boolean ok() {
            return latency.ok() && throughput.ok() && (durableLatency == null || durableLatency.ok())
                    && (durableThroughput == null || durableThroughput.ok());
        }
    }

    /** The durable section's cell: 1 KiB to one consumer, as upstream's durable plan (W4b). */
    static final Cell DURABLE_CELL = new Cell(1024, 1);
    /** Durable latency: measured messages per run at most (see {@link #durableLatency}). */
    static final int DURABLE_COUNT = 5_000;
    /** Durable latency: unmeasured messages at the start of each run at most. */
    static final int DURABLE_WARMUP = 500;

    private CompareBenchmark() {
    }

    public static Outcome run(Options o, PrintStream out, PrintStream progress) throws Exception {
        LatencyBenchmark.Options lo = o.latency();
        ThroughputBenchmark.Options to = o.throughput();
        long started = System.nanoTime();
        // Latency first, then throughput, then the durable section; within each, systems interleave run by run.
        Suite.Outcome latency = section("latency", lo.workload(), o.systems(), lo.brokerSettings(), lo.cells(),
                lo.runs(), progress);
        Suite.Outcome throughput = section("throughput", to.workload(), o.systems(), to.brokerSettings(),
                to.cells(), to.runs(), progress);
        Suite.Outcome durableLatency = null;
        Suite.Outcome durableThroughput = null;
        if (!o.durable().isEmpty()) {
            // Durable append + consume: the same two workloads on durable streams (Felix) and JetStream.
            durableLatency = section("durable latency", durableLatency(lo), o.durable(), lo.brokerSettings(),
                    List.of(DURABLE_CELL), lo.runs(), progress);
            durableThroughput = section("durable throughput", to.workload(), o.durable(), to.brokerSettings(),
                    List.of(DURABLE_CELL), to.runs(), progress);
        }
        progress.println(String.format(Locale.ROOT, "compare: all sections done in %.0f s",
                (System.nanoTime() - started) / 1e9));

        // The tables go to the console and, verbatim, to the .txt beside the JSON record.
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        PrintStream report = new PrintStream(buffer, true, StandardCharsets.UTF_8);
        report.println("felix bench compare — " + describeMachine());
        SuiteReport.printMedians(latency, lo.runs(), report);
        SuiteReport.printRatios(latency, report);
        SuiteReport.printMedians(throughput, to.runs(), report);
        SuiteReport.printRatios(throughput, report);
        ThroughputBenchmark.printUndersized(throughput, report);
        if (durableLatency != null) {
            report.println();
            report.println("Durable append + consume (Felix durable streams vs NATS JetStream file storage, R1)");
            SuiteReport.printMedians(durableLatency, lo.runs(), report);
            SuiteReport.printRatios(durableLatency, report);
            SuiteReport.printMedians(durableThroughput, to.runs(), report);
            SuiteReport.printRatios(durableThroughput, report);
        }
        List<Map<String, Object>> aims = aims(latency, throughput);
        printAims(aims, report);
        String text = buffer.toString(StandardCharsets.UTF_8);
        out.print(text);
        if (o.resultsDir() != null) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("latency", SuiteReport.toJson(latency, lo.runs()));
            doc.put("throughput", SuiteReport.toJson(throughput, to.runs()));
            if (durableLatency != null) {
                doc.put("durable_latency", SuiteReport.toJson(durableLatency, lo.runs()));
                doc.put("durable_throughput", SuiteReport.toJson(durableThroughput, to.runs()));
            }
            doc.put("aims", aims);
            doc.put("felix_broker_settings", lo.brokerSettings());
            doc.put("seconds", (System.nanoTime() - started) / 1e9);
            Path json = Results.write(o.resultsDir(), "compare", doc);
            out.println("results written to " + json + " and " + Results.writeText(json, text));
        }
        return new Outcome(latency, throughput, durableLatency, durableThroughput);
    }

    /** One section: announces it (what runs, how many runs in all) on the progress stream, then runs it. */
    private static Suite.Outcome section(String title, Workload workload, List<String> systems,
            Map<String, String> brokerSettings, List<Cell> cells, int runs, PrintStream progress) {
        progress.println(String.format(Locale.ROOT, "compare: %s — %s x %d cell(s) x %d run(s) = %d runs, each on a "
                + "freshly started system", title, String.join(",", systems), cells.size(), runs,
                systems.size() * cells.size() * runs));
        // The section's progress line ends with "<workload>: done, N runs in m:ss".
        return Suite.run(workload, Targets.byNames(systems, brokerSettings), cells, runs, progress);
    }

    /**
     * The durable section's latency workload: the latency options, but at most {@value #DURABLE_COUNT}
     * measured messages per run. An {@code on_commit} publish waits for an fsync (about 2.5 ms on this
     * machine's disk), so 20,000 closed-loop messages would take over a minute per run; a few thousand give
     * a p99 just as well.
     */
    static LatencyWorkload durableLatency(LatencyBenchmark.Options lo) {
        return new LatencyWorkload(new LatencyWorkload.Options(Math.min(lo.warmup(), DURABLE_WARMUP),
                Math.min(lo.count(), DURABLE_COUNT), 30), Math.min(lo.jitWarmup(), DURABLE_COUNT));
    }

    /** The machine in one line, for the head of the tables. */
    static String describeMachine() {
        Map<String, Object> env = Results.environment();
        return env.get("cpus") + " CPU(s), " + env.get("cpu_model") + ", " + env.get("os") + ", Java " + env.get("java");
    }

    /**
     * Felix's aims, each against what was measured: p999 under 1 ms at every latency cell; throughput and
     * p99 at least equal to NATS core, with and without TLS.
     */
    static List<Map<String, Object>> aims(Suite.Outcome latency, Suite.Outcome throughput) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (CellSummary c : latency.cells()) {
            if (!c.target().equals(SuiteReport.BASELINE)) {
                continue;
            }
            double p999 = c.median("p999_us");
            out.add(aim("p999 < 1 ms", c, p999, 1000, p999 < 1000, "µs"));
            for (String nats : List.of("nats-tls", "nats")) {
                CellSummary n = latency.find(nats, c.cell());
                if (n != null && n.ok()) {
                    double mine = c.median("p99_us");
                    double theirs = n.median("p99_us");
                    out.add(aim("p99 <= " + nats + " p99", c, mine, theirs, mine <= theirs, "µs"));
                }
            }
        }
        for (CellSummary c : throughput.cells()) {
            if (!c.target().equals(SuiteReport.BASELINE)) {
                continue;
            }
            for (String nats : List.of("nats-tls", "nats")) {
                CellSummary n = throughput.find(nats, c.cell());
                if (n != null && n.ok()) {
                    double mine = c.median("msgs_per_s");
                    double theirs = n.median("msgs_per_s");
                    out.add(aim("throughput >= " + nats, c, mine, theirs, mine >= theirs, "deliveries/s"));
                }
            }
        }
        return out;
    }

    private static Map<String, Object> aim(String what, CellSummary c, double measured, double goal, boolean met,
            String unit) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("aim", what);
        m.put("payload_bytes", c.cell().payload());
        m.put("fanout", c.cell().fanout());
        m.put("felix", measured);
        m.put("goal", goal);
        m.put("unit", unit);
        m.put("met", c.ok() && met);
        m.put("felix_over_goal", measured / goal);
        return m;
    }

    static void printAims(List<Map<String, Object>> aims, PrintStream out) {
        out.println();
        out.println("Aims (Felix medians against the goal)");
        for (Map<String, Object> a : aims) {
            out.println(String.format(Locale.ROOT, "  %-26s payload=%-5d fanout=%-3d felix %12.1f vs %12.1f %-13s %s (%.2fx)",
                    a.get("aim"), (Integer) a.get("payload_bytes"), (Integer) a.get("fanout"),
                    (Double) a.get("felix"), (Double) a.get("goal"), a.get("unit"),
                    Boolean.TRUE.equals(a.get("met")) ? "met" : "NOT MET", (Double) a.get("felix_over_goal")));
        }
    }
}
