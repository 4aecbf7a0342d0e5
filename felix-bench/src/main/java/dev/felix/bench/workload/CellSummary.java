package dev.felix.bench.workload;

import dev.felix.bench.common.Stats;
import java.util.ArrayList;
import java.util.List;

/**
 * Every run of one system on one cell, and their summary: the median of each metric over the runs that
 * passed (a run with a sequence error failed and is not averaged in: its figures measure something
 * else), and worst ÷ median.
 *
 * @param target  system name
 * @param cell    the cell
 * @param runs    every run, in order
 */
public record CellSummary(String target, Cell cell, List<RunResult> runs) {

    public List<RunResult> passed() {
        return runs.stream().filter(RunResult::ok).toList();
    }

    public long failed() {
        return runs.size() - passed().size();
    }

    /** Whether the cell counts: at least one run, and no run failed. */
    public boolean ok() {
        return !runs.isEmpty() && failed() == 0;
    }

    public List<Double> values(String key) {
        List<Double> out = new ArrayList<>();
        for (RunResult r : passed()) {
            Double v = r.values().get(key);
            if (v != null && !v.isNaN()) {
                out.add(v);
            }
        }
        return out;
    }

    public double median(String key) {
        return Stats.median(values(key));
    }

    public double spread(Metric m) {
        return Stats.spread(values(m.key()), m.higherIsBetter());
    }

    /** "ok (N checked)" or what went wrong, for the table. */
    public String sequence() {
        long delivered = runs.stream().mapToLong(RunResult::delivered).sum();
        if (ok()) {
            return "ok (" + delivered + " checked)";
        }
        StringBuilder b = new StringBuilder(failed() + "/" + runs.size() + " runs FAILED");
        for (RunResult r : runs) {
            if (!r.ok()) {
                b.append(": ").append(r.failure() != null ? r.failure() : r.sequence());
                break;
            }
        }
        return b.toString();
    }
}
