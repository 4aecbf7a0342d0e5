package dev.felix.bench.workload;

import java.util.Map;

/**
 * What one run measured.
 *
 * @param values         the workload's metrics by key (NaN when not measurable)
 * @param delivered      deliveries counted, all subscribers together
 * @param sequenceErrors missing + duplicated + reordered deliveries, all subscribers together
 * @param sequence       a short account per subscriber, e.g. {@code "ok"}
 * @param failure        why the run failed (null if it did not); a run with sequence errors failed
 * @param detail         extra facts for the JSON record (sizes, GC, validity)
 */
public record RunResult(Map<String, Double> values, long delivered, long sequenceErrors, String sequence,
        String failure, Map<String, Object> detail) {

    public boolean ok() {
        return failure == null && sequenceErrors == 0;
    }

    /** A run that could not be measured at all. */
    public static RunResult failed(String why) {
        return new RunResult(Map.of(), 0, 0, "not run", why, Map.of());
    }
}
