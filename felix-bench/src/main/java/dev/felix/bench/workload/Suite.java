package dev.felix.bench.workload;

import dev.felix.bench.common.Progress;
import dev.felix.bench.common.ProgressLine;
import dev.felix.bench.system.Target;
import dev.felix.bench.system.TargetFactory;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a workload over cells and systems: each run on a freshly started system (new broker, new
 * connections), runs of different systems interleaved (A, B, C, A, B, C, ...) so that a noisy spell on
 * the shared machine hits every system alike rather than one of them.
 */
public final class Suite {

    private static final AtomicInteger TOPICS = new AtomicInteger();

    private Suite() {
    }

    /** Result of a suite: per system and cell, every run; and the systems that could not run, with why. */
    public record Outcome(Workload workload, List<String> targets, Map<String, String> skipped,
            List<CellSummary> cells) {

        public boolean ok() {
            return cells.stream().allMatch(CellSummary::ok);
        }

        public CellSummary find(String target, Cell cell) {
            return cells.stream().filter(c -> c.target().equals(target) && c.cell().equals(cell)).findFirst()
                    .orElse(null);
        }
    }

    /**
     * @param runs     fresh runs per system and cell
     * @param progress where the progress line goes (stderr; see {@link ProgressLine})
     */
    public static Outcome run(Workload workload, List<TargetFactory> factories, List<Cell> cells, int runs,
            PrintStream progress) {
        List<TargetFactory> available = new ArrayList<>();
        Map<String, String> skipped = new LinkedHashMap<>();
        for (TargetFactory f : factories) {
            String why = f.unavailable();
            if (why == null) {
                available.add(f);
            } else {
                skipped.put(f.name(), why);
                progress.println("skipping " + f.name() + ": " + why);
            }
        }
        Workload warm = workload.warmupVariant();
        boolean warmUp = warm != null && !cells.isEmpty();
        int warmCells = !warmUp ? 0 : workload.warmupEachCell() ? cells.size() : 1;
        int steps = (warmCells + cells.size() * runs) * available.size();
        ProgressLine line = new ProgressLine(progress, workload.name(), steps, "runs");
        Map<String, CellSummary> byKey = new LinkedHashMap<>();
        for (int c = 0; c < cells.size(); c++) {
            Cell cell = cells.get(c);
            for (TargetFactory f : available) {
                byKey.put(f.name() + "|" + cell, new CellSummary(f.name(), cell, new ArrayList<>()));
            }
            if (c < warmCells) {
                for (TargetFactory f : available) {
                    warmUp(warm, f, cell, c == 0 ? workload.warmupSeconds() : 0, line);
                }
            }
            for (int run = 1; run <= runs; run++) {
                for (TargetFactory f : available) {
                    String label = String.format("%s payload=%d fanout=%d run %d/%d", f.name(), cell.payload(),
                            cell.fanout(), run, runs);
                    RunResult r = runOnce(workload, f, cell, line.step(label, 100));
                    if (!r.ok()) {
                        line.message(workload.name() + " " + label + " FAILED: "
                                + (r.failure() != null ? r.failure() : r.sequence()));
                    }
                    byKey.get(f.name() + "|" + cell).runs().add(r);
                }
            }
        }
        if (steps > 0) {
            line.finish();
        }
        return new Outcome(workload, available.stream().map(TargetFactory::name).toList(), skipped,
                List.copyOf(byKey.values()));
    }

    /** Most warm-up runs of one system in one cell, however short they are. */
    static final int MAX_WARMUP_RUNS = 50;

    /**
     * Unmeasured runs of {@code warm} on {@code cell}, each on a freshly started system like a measured run: at least
     * one, and more until {@code seconds} have passed (at most {@link #MAX_WARMUP_RUNS}). They compile this JVM's hot
     * paths (Felix's broker and every client, peers' clients included) before anything is timed; on two busy cores
     * the JIT takes seconds of load to settle, and measured runs before that rate the compiler, not the system.
     */
    static void warmUp(Workload warm, TargetFactory f, Cell cell, double seconds, ProgressLine line) {
        long until = System.nanoTime() + (long) (seconds * 1e9);
        Progress progress = line.step(String.format("%s warm-up payload=%d fanout=%d", f.name(), cell.payload(),
                cell.fanout()), 100);
        int done = 0;
        do {
            RunResult r = runOnce(warm, f, cell, progress);
            done++;
            if (!r.ok()) {
                line.message("warm-up run of " + f.name() + " failed: "
                        + (r.failure() != null ? r.failure() : r.sequence()));
                break; // a system that cannot run this cell is reported by its measured runs
            }
            if (done > 1) {
                line.detail("warm-up run " + done);
            }
        } while (System.nanoTime() < until && done < MAX_WARMUP_RUNS);
    }

    /** One run on a freshly started system; any exception becomes a failed run, never an aborted suite. */
    static RunResult runOnce(Workload workload, TargetFactory factory, Cell cell, Progress progress) {
        String topic = "bench-" + TOPICS.incrementAndGet();
        try (Target target = factory.start()) {
            return workload.run(target, cell, topic, progress);
        } catch (Exception | AssertionError e) {
            return RunResult.failed(e.getClass().getSimpleName() + ": " + e.getMessage());
        } finally {
            System.gc(); // start the next run with an empty young generation rather than mid-cycle
        }
    }
}
