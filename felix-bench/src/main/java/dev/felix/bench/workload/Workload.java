package dev.felix.bench.workload;

import dev.felix.bench.common.Progress;
import dev.felix.bench.system.Target;
import java.util.List;
import java.util.Map;

/**
 * A benchmark workload: given a freshly started system and a cell, run once and report. A new workload
 * (e.g. {@code watch}) plugs into {@link Suite} and {@code compare} by implementing this.
 *
 * <p>Every workload counts and sequence-checks every delivery it times, at every subscriber.
 */
public interface Workload {

    /** {@code latency}, {@code throughput}, ... (also the results file name). */
    String name();

    /** One line on what is timed and how, for tables and the JSON record. */
    String method();

    /** The metrics each run reports, in table order. */
    List<Metric> metrics();

    /** Sizes and settings for the JSON record. */
    Map<String, Object> settings();

    /**
     * A variant (smaller, or capped shorter) run unmeasured per system before measuring (on the first cell, or on
     * each: {@link #warmupEachCell}), so the JIT has compiled the path; null for none.
     */
    Workload warmupVariant();

    /** How long the warm-up runs on the first cell last at least, per system (0: one run). */
    default double warmupSeconds() {
        return 0;
    }

    /** Whether every cell, not only the first, gets one warm-up run per system before its measured runs. */
    default boolean warmupEachCell() {
        return false;
    }

    /** One run on {@code target}, publishing to a topic no earlier run used. */
    RunResult run(Target target, Cell cell, String topic, Progress progress) throws Exception;
}
