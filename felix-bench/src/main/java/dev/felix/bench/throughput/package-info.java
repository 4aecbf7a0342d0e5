/**
 * {@code felix bench throughput}: lossless sustained throughput with block policies end to end, every delivery
 * counted and sequence-checked. Entry: {@link dev.felix.bench.throughput.ThroughputBenchmark}, a front end to
 * {@code dev.felix.bench.workload}'s throughput workload.
 */
package dev.felix.bench.throughput;
