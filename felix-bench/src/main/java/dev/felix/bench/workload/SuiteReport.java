package dev.felix.bench.workload;

import dev.felix.bench.common.Stats;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Prints a suite's outcome as tables (medians, worst ÷ median, sequence verdicts; Felix ÷ each peer; each
 * peer's TLS tax) and turns it into the JSON record.
 */
public final class SuiteReport {

    /** The system every other is compared with (durable suites: the first Felix variant listed). */
    public static final String BASELINE = "felix";

    /** The Felix system of an outcome that the peers are compared with: the first one listed. */
    static String baseline(Suite.Outcome o) {
        return o.targets().stream().filter(t -> t.startsWith(BASELINE)).findFirst().orElse(null);
    }

    private SuiteReport() {
    }

    /** The medians table, one row per cell and system. */
    public static void printMedians(Suite.Outcome o, int runs, PrintStream out) {
        Workload w = o.workload();
        Metric primary = w.metrics().get(primaryIndex(w));
        out.println();
        out.println(title(w) + " — median of " + runs + " fresh run(s) per row");
        out.println("  " + w.method());
        StringBuilder head = new StringBuilder(String.format("%8s %6s %-18s", "payload", "fanout", "system"));
        for (Metric m : w.metrics()) {
            head.append(String.format(" %13s", m.label()));
        }
        head.append(String.format(" %12s  %s", "worst÷median", "sequence"));
        out.println(head);
        for (CellSummary c : o.cells()) {
            StringBuilder row = new StringBuilder(String.format("%8d %6d %-18s", c.cell().payload(), c.cell().fanout(),
                    c.target()));
            for (Metric m : w.metrics()) {
                row.append(String.format(" %13s", format(c.median(m.key()))));
            }
            row.append(String.format(" %12s  %s", format(c.spread(primary)) + "x " + shortKey(primary), c.sequence()));
            out.println(row);
        }
        o.skipped().forEach((name, why) -> out.println("  not run: " + name + " — " + why));
        printNoise(o, out);
    }

    /** How busy the rest of the machine was while runs were timed (other sessions, builds, ...). */
    static void printNoise(Suite.Outcome o, PrintStream out) {
        List<Double> shares = new ArrayList<>();
        for (CellSummary c : o.cells()) {
            for (RunResult r : c.runs()) {
                if (r.detail().get("other_processes_cpu_share") instanceof Double d && !d.isNaN()) {
                    shares.add(d);
                }
            }
        }
        if (!shares.isEmpty()) {
            long busy = shares.stream().filter(d -> d > 0.25).count();
            out.println(String.format(Locale.ROOT, "  other processes used a median %.0f%% (max %.0f%%) of the machine's CPU"
                    + " during timed windows; %d of %d runs above 25%%", 100 * Stats.median(shares),
                    100 * Stats.worst(shares, false), busy, shares.size()));
        }
    }

    /** Felix ÷ every other system, per cell and metric; and each peer's TLS tax (name-tls ÷ name). */
    public static void printRatios(Suite.Outcome o, PrintStream out) {
        Workload w = o.workload();
        List<Map<String, Object>> ratios = ratios(o);
        if (!ratios.isEmpty()) {
            out.println();
            out.println(title(w) + ": " + baseline(o) + " ÷ peer, median over rounds of the paired runs ("
                    + (w.metrics().get(0).higherIsBetter() ? "rates: above 1 = Felix ahead" : "latencies: above 1 = Felix slower")
                    + "; costs: above 1 = Felix spends more)");
            printRatioRows(w, ratios, "peer", out);
        }
        List<Map<String, Object>> tax = tlsTax(o);
        if (!tax.isEmpty()) {
            out.println();
            out.println(title(w) + ": TLS tax per peer (with TLS ÷ without, paired runs)");
            printRatioRows(w, tax, "system", out);
        }
    }

    private static void printRatioRows(Workload w, List<Map<String, Object>> rows, String who, PrintStream out) {
        StringBuilder head = new StringBuilder(String.format("%8s %6s %-18s", "payload", "fanout", who));
        for (Metric m : w.metrics()) {
            head.append(String.format(" %13s", m.label()));
        }
        out.println(head);
        for (Map<String, Object> r : rows) {
            StringBuilder row = new StringBuilder(String.format("%8d %6d %-18s", (Integer) r.get("payload_bytes"),
                    (Integer) r.get("fanout"), r.get(who)));
            @SuppressWarnings("unchecked")
            Map<String, Double> v = (Map<String, Double>) r.get("ratios");
            for (Metric m : w.metrics()) {
                Double d = v.get(m.key());
                row.append(String.format(" %13s", d == null || d.isNaN() ? "-" : String.format(Locale.ROOT, "%.2fx", d)));
            }
            out.println(row);
        }
    }

    /** Felix's median ÷ each other system's, per cell (cells where either side failed are left out). */
    public static List<Map<String, Object>> ratios(Suite.Outcome o) {
        List<Map<String, Object>> out = new ArrayList<>();
        String base = baseline(o);
        if (base == null) {
            return out;
        }
        for (CellSummary peer : o.cells()) {
            if (peer.target().startsWith(BASELINE)) {
                continue; // Felix variants are not peers
            }
            CellSummary felix = o.find(base, peer.cell());
            if (felix != null) {
                out.add(ratioRow("peer", peer.target(), peer.cell(), felix, peer, o.workload()));
            }
        }
        return out;
    }

    /** For every {@code X-tls} with a plain {@code X} beside it: X-tls ÷ X. */
    public static List<Map<String, Object>> tlsTax(Suite.Outcome o) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (CellSummary tls : o.cells()) {
            if (!tls.target().endsWith("-tls")) {
                continue;
            }
            String plain = tls.target().substring(0, tls.target().length() - "-tls".length());
            CellSummary base = o.find(plain, tls.cell());
            if (base != null) {
                out.add(ratioRow("system", plain, tls.cell(), tls, base, o.workload()));
            }
        }
        return out;
    }

    private static Map<String, Object> ratioRow(String whoKey, String who, Cell cell, CellSummary top,
            CellSummary bottom, Workload w) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put(whoKey, who);
        row.put("payload_bytes", cell.payload());
        row.put("fanout", cell.fanout());
        Map<String, Double> paired = new LinkedHashMap<>();
        Map<String, Double> ofMedians = new LinkedHashMap<>();
        boolean both = top.ok() && bottom.ok();
        for (Metric m : w.metrics()) {
            paired.put(m.key(), both ? pairedRatio(top, bottom, m.key()) : Double.NaN);
            ofMedians.put(m.key(), both ? Stats.ratio(top.median(m.key()), bottom.median(m.key())) : Double.NaN);
        }
        row.put("ratios", paired);
        row.put("ratio_of_medians", ofMedians);
        return row;
    }

    /**
     * The median over rounds of run i of one system ÷ run i of the other. Runs of one round ran back to
     * back (interleaved), so they shared the machine's conditions of the moment; on a shared machine whose
     * load drifts, this is steadier than a ratio of medians taken over different moments.
     */
    static double pairedRatio(CellSummary top, CellSummary bottom, String key) {
        List<Double> ratios = new ArrayList<>();
        int n = Math.min(top.runs().size(), bottom.runs().size());
        for (int i = 0; i < n; i++) {
            RunResult a = top.runs().get(i);
            RunResult b = bottom.runs().get(i);
            Double x = a.values().get(key);
            Double y = b.values().get(key);
            if (a.ok() && b.ok() && x != null && y != null) {
                double r = Stats.ratio(x, y);
                if (!Double.isNaN(r)) {
                    ratios.add(r);
                }
            }
        }
        return Stats.median(ratios);
    }

    /** The JSON record of an outcome. */
    public static Map<String, Object> toJson(Suite.Outcome o, int runs) {
        Workload w = o.workload();
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("workload", w.name());
        doc.put("method", w.method());
        doc.put("settings", w.settings());
        doc.put("runs_per_cell", runs);
        doc.put("systems", o.targets());
        doc.put("skipped", o.skipped());
        doc.put("all_runs_passed_sequence_checks", o.ok());
        List<Map<String, Object>> cells = new ArrayList<>();
        for (CellSummary c : o.cells()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("system", c.target());
            m.put("payload_bytes", c.cell().payload());
            m.put("fanout", c.cell().fanout());
            m.put("ok", c.ok());
            m.put("sequence", c.sequence());
            Map<String, Double> median = new LinkedHashMap<>();
            Map<String, Double> spread = new LinkedHashMap<>();
            for (Metric metric : w.metrics()) {
                median.put(metric.key(), c.median(metric.key()));
                spread.put(metric.key(), c.spread(metric));
            }
            m.put("median", median);
            m.put("worst_over_median", spread);
            List<Map<String, Object>> rs = new ArrayList<>();
            for (RunResult r : c.runs()) {
                Map<String, Object> rm = new LinkedHashMap<>();
                rm.put("values", r.values());
                rm.put("delivered", r.delivered());
                rm.put("sequence_errors", r.sequenceErrors());
                rm.put("sequence", r.sequence());
                rm.put("failure", r.failure());
                rm.put("detail", r.detail());
                rs.add(rm);
            }
            m.put("runs", rs);
            cells.add(m);
        }
        doc.put("cells", cells);
        doc.put("felix_over_peer", ratios(o));
        doc.put("tls_tax", tlsTax(o));
        return doc;
    }

    static String format(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        double a = Math.abs(v);
        if (a >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }

    private static int primaryIndex(Workload w) {
        for (int i = 0; i < w.metrics().size(); i++) {
            if (w.metrics().get(i).key().equals("p99_us")) {
                return i;
            }
        }
        return 0;
    }

    private static String shortKey(Metric m) {
        return m.key().replace("_us", "").replace("_per_s", "/s");
    }

    private static String title(Workload w) {
        return switch (w.name()) {
            case "latency" -> "Closed-loop latency (µs, at every subscriber)";
            case "throughput" -> "Lossless throughput (deliveries over all subscribers; MB = 10^6 bytes incl. 16-byte header)";
            default -> w.name();
        };
    }
}
