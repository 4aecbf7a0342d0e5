package dev.felix.bench.workload;

/**
 * A figure a workload reports per run and, over runs, as a median.
 *
 * @param key            JSON key, e.g. {@code p99_us}
 * @param label          column heading
 * @param higherIsBetter true for rates, false for latencies and costs (decides "worst" and ratio wording)
 */
public record Metric(String key, String label, boolean higherIsBetter) {
}
