/**
 * The benchmark workloads and the suite that runs them: a {@link dev.felix.bench.workload.Workload} runs once
 * against a freshly started system for one {@link dev.felix.bench.workload.Cell} of its matrix;
 * {@link dev.felix.bench.workload.Suite} interleaves runs of different systems, and
 * {@link dev.felix.bench.workload.SuiteReport} prints medians and spreads and writes the JSON results. Latency and
 * throughput are the two workloads here; {@code watch} plugs in the same way.
 */
package dev.felix.bench.workload;
