/**
 * {@code felix bench latency}: closed-loop publish-to-delivery latency, every delivery sequence-checked. Entry:
 * {@link dev.felix.bench.latency.LatencyBenchmark}, a front end to {@code dev.felix.bench.workload}'s latency
 * workload.
 */
package dev.felix.bench.latency;
