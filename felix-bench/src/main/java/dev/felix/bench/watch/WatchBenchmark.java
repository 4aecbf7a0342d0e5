package dev.felix.bench.watch;

import dev.felix.bench.common.CpuClock;
import dev.felix.bench.common.Progress;
import dev.felix.bench.common.ProgressLine;
import dev.felix.bench.common.Results;
import dev.felix.bench.common.Stats;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@code felix bench watch}: "watch a keyspace" — many watchers keeping a local copy of a changing key
 * space — on Felix and its peers (etcd watch, NATS KV watch, Redis keyspace notifications), through the
 * same workload code ({@link WatchWorkload}). For each watcher count: propagation latency to every mirror
 * at a fixed rate, the highest rate every mirror keeps up with, CPU per million applied changes, and a
 * convergence check that fails a run with any wrong key. Each cell is the median of fresh runs, with
 * systems interleaved run by run; a missing peer is reported as skipped with the reason.
 */
public final class WatchBenchmark {

    /** Every key lives under this prefix, and every watcher watches it. */
    static final String PREFIX = "cfg.";

    /**
     * @param systems        system names, see {@link WatchSystems#ALL}
     * @param watchers       watcher counts, one table each
     * @param keys           keys in the key space
     * @param runs           fresh runs per system and watcher count
     * @param rate           updates/s of the latency phase, at most ...
     * @param latencyChanges ... this many applied changes per second in all (rate x watchers), so the latency
     *                       phase stays moderate at every watcher count (100 watchers: 100 updates/s)
     * @param warmup         unmeasured puts at the latency rate before the latency phase
     * @param latency        length of the latency phase
     * @param rampStartChanges the ramp starts at this many applied changes/s (rate x watchers)...
     * @param rampMin        ... but at no less than this many updates/s; when the first step does not keep
     *                       up, the ramp steps down until one does or the rate falls below this
     * @param rampFactor     each step's rate over the previous one's
     * @param rampStep       length of a ramp step
     * @param rampMaxSteps   most ramp steps (the ramp usually stops earlier, at the first that fails)
     * @param convergeWithin a step keeps up only if every mirror holds every final value this soon after it
     * @param p99Bound       ... and the p99 propagation of its writes is below this
     * @param keepUpFraction ... and the achieved put rate is at least this fraction of the offered one
     * @param valueBytes     value size (a 20-byte stamp, then filler)
     * @param inflight       most puts in flight at once
     * @param zipfS          Zipf exponent of the key choice
     * @param seed           seed of the key choice (run i uses seed + i)
     * @param results        directory for watch-*.json and .txt
     * @param felixSettings  broker settings for Felix
     * @param binaries       peer binaries by system name, overriding the installed defaults
     */
    public record Options(List<String> systems, List<Integer> watchers, int keys, int runs, int rate,
            int latencyChanges, Duration warmup, Duration latency, int rampStartChanges, int rampMin,
            double rampFactor, Duration rampStep, int rampMaxSteps,
            Duration convergeWithin, Duration p99Bound, double keepUpFraction, int valueBytes, int inflight,
            double zipfS, long seed, Path results, Map<String, String> felixSettings, Map<String, String> binaries) {

        public Options {
            Objects.requireNonNull(systems, "systems");
            Objects.requireNonNull(watchers, "watchers");
            if (watchers.isEmpty() || watchers.stream().anyMatch(w -> w < 1)) {
                throw new IllegalArgumentException("watcher counts must be >= 1, were " + watchers);
            }
            if (keys < 1 || runs < 1 || rate < 1 || latencyChanges < 1 || rampStartChanges < 1 || rampMin < 1
                    || rampMaxSteps < 1 || inflight < 1) {
                throw new IllegalArgumentException("keys, runs, rates, ramp steps and inflight must be >= 1");
            }
            if (!(rampFactor > 1)) {
                throw new IllegalArgumentException("ramp factor must be > 1, was " + rampFactor);
            }
            if (valueBytes < WriteTracker.HEADER_BYTES) {
                throw new IllegalArgumentException("values must be >= " + WriteTracker.HEADER_BYTES + " bytes");
            }
            for (String s : systems) {
                if (!WatchSystems.ALL.contains(s)) {
                    throw new IllegalArgumentException("unknown system '" + s + "'; known: " + WatchSystems.ALL);
                }
            }
        }

        /**
         * The recorded configuration: 5 runs; 5 s warm-up (a fresh broker process per run, and a JVM broker
         * compiles its hot paths meanwhile), 10 s latency phase at 1,000 updates/s; 3 s ramp steps.
         */
        public static Options defaults() {
            return new Options(WatchSystems.DEFAULT, List.of(1, 10, 100), 2_000, 5, 1_000, 10_000,
                    Duration.ofSeconds(5), Duration.ofSeconds(10), 2_000, 10, 1.5, Duration.ofSeconds(3), 24,
                    Duration.ofSeconds(1), Duration.ofMillis(100), 0.95, 64, 128, 1.0, 42, Path.of("bench/results"),
                    Map.of(), Map.of());
        }

        /** A first look: 3 runs, 2 s warm-up, 3 s latency phase, 1.5 s ramp steps. */
        public static Options quick() {
            Options d = defaults();
            return new Options(d.systems, d.watchers, d.keys, 3, d.rate, d.latencyChanges, Duration.ofSeconds(2),
                    Duration.ofSeconds(3), d.rampStartChanges, d.rampMin, d.rampFactor, Duration.ofMillis(1500),
                    d.rampMaxSteps, d.convergeWithin, d.p99Bound, d.keepUpFraction, d.valueBytes, d.inflight, d.zipfS,
                    d.seed, d.results, d.felixSettings, d.binaries);
        }

        /** These options with the CLI's overrides (null keeps the current value). */
        public Options with(List<String> systems, List<Integer> watchers, Integer keys, Integer runs, Integer rate,
                Path results, Map<String, String> felixSettings) {
            return new Options(systems != null ? systems : this.systems, watchers != null ? watchers : this.watchers,
                    keys != null ? keys : this.keys, runs != null ? runs : this.runs, rate != null ? rate : this.rate,
                    latencyChanges, warmup, latency, rampStartChanges, rampMin, rampFactor, rampStep, rampMaxSteps,
                    convergeWithin, p99Bound,
                    keepUpFraction, valueBytes, inflight, zipfS, seed, results != null ? results : this.results,
                    felixSettings != null ? felixSettings : this.felixSettings, binaries);
        }

        /** These options with shorter phases (tests). */
        public Options timed(Duration warmup, Duration latency, Duration rampStep, int rampMaxSteps) {
            return new Options(systems, watchers, keys, runs, rate, latencyChanges, warmup, latency, rampStartChanges,
                    rampMin, rampFactor, rampStep, rampMaxSteps, convergeWithin, p99Bound, keepUpFraction, valueBytes,
                    inflight, zipfS, seed, results, felixSettings, binaries);
        }

        /** These options with peer binaries overridden (tests name a missing one). */
        public Options withBinaries(Map<String, String> binaries) {
            return new Options(systems, watchers, keys, runs, rate, latencyChanges, warmup, latency, rampStartChanges,
                    rampMin, rampFactor, rampStep, rampMaxSteps, convergeWithin, p99Bound, keepUpFraction, valueBytes,
                    inflight, zipfS, seed, results, felixSettings, binaries);
        }

        /** The latency phase's rate at {@code watchers} watchers. */
        public int latencyRate(int watchers) {
            return (int) Math.max(1, Math.min(rate, latencyChanges / (long) watchers));
        }

        /** The first ramp step's rate at {@code watchers} watchers. */
        public double rampStart(int watchers) {
            return Math.max(rampMin, rampStartChanges / (double) watchers);
        }
    }

    /** Medians over the passed runs of one system at one watcher count. */
    public record Cell(String system, int watchers, List<WatchWorkload.Run> runs, Map<String, Double> median,
            Map<String, Double> spread) {

        public long passed() {
            return runs.stream().filter(WatchWorkload.Run::ok).count();
        }

        public boolean ok() {
            return passed() > 0 && passed() == runs.size();
        }

        /** The distinct failure reasons of the failed runs. */
        public List<String> failures() {
            return runs.stream().filter(r -> !r.ok()).map(WatchWorkload.Run::failure).distinct().toList();
        }
    }

    /** What a whole invocation produced. */
    public record Report(List<Cell> cells, Map<String, String> skipped, String table, Path json, Path text) {

        /** No Felix run failed (a peer that diverges is a finding about the peer, reported in the table). */
        public boolean ok() {
            return cells.stream().filter(c -> c.system().startsWith("felix")).allMatch(Cell::ok);
        }

        public Cell find(String system, int watchers) {
            return cells.stream().filter(c -> c.system().equals(system) && c.watchers() == watchers).findFirst()
                    .orElse(null);
        }
    }

    /** Lower is better for these; higher for the rest. */
    private static final List<String> LOWER_IS_BETTER = List.of("p50_us", "p99_us", "p999_us", "max_us", "all_p50_us",
            "all_p99_us", "all_p999_us", "cpu_s_per_m", "broker_cpu_s_per_m", "other_cores");

    private WatchBenchmark() {
    }

    /** Runs everything the options ask for; prints progress to {@code err}, the tables to {@code out}. */
    public static Report run(Options o, PrintStream out, PrintStream err) throws IOException {
        List<WatchSystem> systems = new ArrayList<>();
        Map<String, String> skipped = new LinkedHashMap<>();
        for (String name : o.systems()) {
            WatchSystem s = WatchSystems.byName(name, o.felixSettings(), o.binaries());
            String why = s.unavailable();
            if (why != null) {
                skipped.put(name, why);
                err.println("[watch] " + name + ": skipped, " + why);
            } else {
                systems.add(s);
            }
        }
        WatchWorkload workload = new WatchWorkload(o);
        Map<String, List<WatchWorkload.Run>> runs = new LinkedHashMap<>();
        long busy0 = CpuClock.machineBusy();
        long wall0 = System.nanoTime();
        ProgressLine line = new ProgressLine(err, "watch", o.watchers().size() * o.runs() * systems.size(), "runs");
        for (int w : o.watchers()) {
            for (int i = 0; i < o.runs(); i++) {
                for (WatchSystem s : systems) { // interleaved: a slow minute of the machine hits every system
                    String label = String.format("%s, %d watcher%s, run %d/%d", s.name(), w, w == 1 ? "" : "s", i + 1,
                            o.runs());
                    Progress step = line.step(label, 1);
                    // What the run is doing (latency phase, ramp steps) shows on a terminal's live line only;
                    // every figure is in the JSON record's run detail.
                    WatchWorkload.Run r = workload.run(s, w, i, line::detail);
                    step.update(1);
                    if (!r.ok()) {
                        line.message("[watch] " + label + " FAILED: " + r.failure());
                    }
                    runs.computeIfAbsent(s.name() + "/" + w, k -> new ArrayList<>()).add(r);
                }
            }
        }
        if (!systems.isEmpty()) {
            line.finish();
        }
        double wallSeconds = (System.nanoTime() - wall0) / 1e9;
        long busy1 = CpuClock.machineBusy();
        List<Cell> cells = new ArrayList<>();
        for (int w : o.watchers()) {
            for (WatchSystem s : systems) {
                cells.add(summarise(s.name(), w, runs.getOrDefault(s.name() + "/" + w, List.of())));
            }
        }
        String table = table(o, cells, skipped);
        out.print(table);
        out.flush();

        Map<String, Object> result = new LinkedHashMap<>();
        result.put("options", optionsMap(o));
        result.put("skipped", skipped);
        result.put("wall_seconds", wallSeconds);
        result.put("machine_busy_cpu_seconds", busy0 < 0 || busy1 < 0 ? null : (busy1 - busy0) / 1e9);
        List<Map<String, Object>> cellMaps = new ArrayList<>();
        for (Cell c : cells) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("system", c.system());
            m.put("watchers", c.watchers());
            m.put("runs", c.runs().size());
            m.put("passed", c.passed());
            m.put("failures", c.failures());
            m.put("median", c.median());
            m.put("worst_over_median", c.spread());
            m.put("run_results", c.runs().stream().map(WatchBenchmark::runMap).toList());
            cellMaps.add(m);
        }
        result.put("cells", cellMaps);
        result.put("table", table);
        Path json = Results.write(o.results(), "watch", result);
        Path text = json.resolveSibling(json.getFileName().toString().replaceFirst("\\.json$", ".txt"));
        Files.writeString(text, table, StandardCharsets.UTF_8);
        err.println("[watch] wrote " + json + " and " + text);
        return new Report(cells, skipped, table, json, text);
    }

    private static Cell summarise(String system, int watchers, List<WatchWorkload.Run> runs) {
        Map<String, Double> median = new LinkedHashMap<>();
        Map<String, Double> spread = new LinkedHashMap<>();
        List<WatchWorkload.Run> passed = runs.stream().filter(WatchWorkload.Run::ok).toList();
        if (!passed.isEmpty()) {
            for (String key : passed.get(0).values().keySet()) {
                List<Double> v = passed.stream().map(r -> r.values().getOrDefault(key, Double.NaN))
                        .filter(d -> !d.isNaN()).toList();
                boolean higherIsBetter = !LOWER_IS_BETTER.contains(key);
                median.put(key, Stats.median(v));
                spread.put(key, Stats.spread(v, higherIsBetter));
            }
        }
        return new Cell(system, watchers, runs, median, spread);
    }

    private static Map<String, Object> runMap(WatchWorkload.Run r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("run", r.index() + 1);
        m.put("ok", r.ok());
        m.put("failure", r.failure());
        m.put("values", r.values());
        m.put("detail", r.detail());
        return m;
    }

    private static Map<String, Object> optionsMap(Options o) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("systems", o.systems());
        m.put("watchers", o.watchers());
        m.put("keys", o.keys());
        m.put("runs", o.runs());
        m.put("latency_rate_per_s", o.rate());
        m.put("latency_changes_per_s_cap", o.latencyChanges());
        m.put("warmup_s", o.warmup().toMillis() / 1e3);
        m.put("latency_s", o.latency().toMillis() / 1e3);
        m.put("ramp_start_changes_per_s", o.rampStartChanges());
        m.put("ramp_min_per_s", o.rampMin());
        m.put("ramp_factor", o.rampFactor());
        m.put("ramp_step_s", o.rampStep().toMillis() / 1e3);
        m.put("ramp_max_steps", o.rampMaxSteps());
        m.put("keep_up", Map.of("converge_within_ms", o.convergeWithin().toMillis(), "p99_below_ms",
                o.p99Bound().toMillis(), "achieved_fraction", o.keepUpFraction()));
        m.put("value_bytes", o.valueBytes());
        m.put("inflight", o.inflight());
        m.put("zipf_s", o.zipfS());
        m.put("seed", o.seed());
        m.put("felix_settings", o.felixSettings());
        return m;
    }

    // ------------------------------------------------------------------ the table

    static String table(Options o, List<Cell> cells, Map<String, String> skipped) {
        StringBuilder b = new StringBuilder();
        b.append(String.format("%nfelix bench watch: %,d keys (Zipf s=%.1f), %d-byte values; latency phase %d s at %,d "
                + "updates/s (at most %,d changes/s in all); ramp x%.1f per %.1f s step from %,d changes/s in all%n",
                o.keys(), o.zipfS(), o.valueBytes(), o.latency().toSeconds(), o.rate(), o.latencyChanges(),
                o.rampFactor(), o.rampStep().toMillis() / 1e3, o.rampStartChanges()));
        b.append(String.format("Median of %d fresh runs per cell, [worst/median]. p50/p99/p999: put issued -> applied, "
                + "every (write, mirror); all-p99: until the last mirror.%n", o.runs()));
        b.append(String.format("Keeps up = achieved >= %.0f%% of offered, p99 < %d ms, every mirror holds every final "
                + "value <= %d ms after the step.%n", o.keepUpFraction() * 100, o.p99Bound().toMillis(),
                o.convergeWithin().toMillis()));
        for (int w : o.watchers()) {
            b.append(String.format("%nwatchers = %d (latency phase at %,d updates/s; ramp from %,.0f/s)%n", w,
                    o.latencyRate(w), o.rampStart(w)));
            b.append(String.format("%-10s %-5s %-17s %-17s %-17s %-11s %-20s %-22s %-8s %-7s %s%n", "system", "runs",
                    "p50", "p99", "p999", "all-p99", "max updates/s", "updates x watchers/s", "cpu-s/M", "others",
                    "Felix/peer: p99, upd x w"));
            Cell felix = cells.stream().filter(c -> c.system().equals("felix") && c.watchers() == w).findFirst()
                    .orElse(null);
            for (Cell c : cells) {
                if (c.watchers() != w) {
                    continue;
                }
                String runsCol = c.passed() + "/" + c.runs().size();
                if (c.passed() == 0) {
                    b.append(String.format("%-10s %-5s FAILED: %s%n", c.system(), runsCol, String.join(" | ", c.failures())));
                    continue;
                }
                Map<String, Double> m = c.median();
                Map<String, Double> s = c.spread();
                String ratio = "";
                if (felix != null && felix != c && felix.passed() > 0) {
                    ratio = String.format("%s, %s", times(Stats.ratio(felix.median().get("p99_us"), m.get("p99_us"))),
                            times(Stats.ratio(felix.median().get("updates_x_watchers_per_s"),
                                    m.get("updates_x_watchers_per_s"))));
                }
                b.append(String.format("%-10s %-5s %-17s %-17s %-17s %-11s %-20s %-22s %-8s %-7s %s%n", c.system(), runsCol,
                        withSpread(micros(m.get("p50_us")), s.get("p50_us")),
                        withSpread(micros(m.get("p99_us")), s.get("p99_us")),
                        withSpread(micros(m.get("p999_us")), s.get("p999_us")), micros(m.get("all_p99_us")),
                        withSpread(rate(m.get("updates_per_s")), s.get("updates_per_s")),
                        rate(m.get("updates_x_watchers_per_s")), cpu(m.get("cpu_s_per_m")),
                        cpu(m.get("other_cores")), ratio));
                if (c.passed() < c.runs().size()) {
                    b.append(String.format("%-10s   %d run(s) FAILED: %s%n", "", c.runs().size() - c.passed(),
                            String.join(" | ", c.failures())));
                }
            }
            for (Map.Entry<String, String> e : skipped.entrySet()) {
                b.append(String.format("%-10s skipped: %s%n", e.getKey(), e.getValue()));
            }
        }
        b.append(String.format("%nmax updates/s: the last ramp step that kept up (none: not even %d/s).%n", o.rampMin()));
        b.append(String.format("Felix/peer: p99 below 1 = Felix faster; updates x watchers above 1 = Felix sustains more. "
                + "cpu-s/M: CPU seconds (harness JVM + broker process) per million applied changes in the latency phase.%n"
                + "others: CPU cores other processes on this machine used meanwhile (the machine is shared; 2 cores in all).%n"));
        return b.toString();
    }

    /** A latency in µs as "123 µs" or "1.23 ms" or "1.2 s". */
    static String micros(Double us) {
        if (us == null || us.isNaN()) {
            return "-";
        }
        if (us < 1_000) {
            return String.format("%.0f us", us);
        }
        if (us < 1_000_000) {
            return String.format("%.2f ms", us / 1e3);
        }
        return String.format("%.2f s", us / 1e6);
    }

    private static String rate(Double r) {
        if (r == null || r.isNaN()) {
            return "-";
        }
        return r == 0 ? "none" : String.format("%,.0f", r);
    }

    private static String cpu(Double c) {
        return c == null || c.isNaN() ? "-" : String.format("%.2f", c);
    }

    private static String times(double r) {
        return Double.isNaN(r) ? "-" : r >= 100 ? String.format("%.0fx", r) : String.format("%.2fx", r);
    }

    private static String withSpread(String value, Double spread) {
        return spread == null || spread.isNaN() ? value : value + " [" + String.format("%.2f", spread) + "]";
    }
}
