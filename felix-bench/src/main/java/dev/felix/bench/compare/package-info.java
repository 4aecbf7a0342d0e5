/**
 * {@code felix bench compare}: Felix and every available peer (NATS, Redis; with and without TLS) through the same
 * latency and throughput workloads, side by side. Entry: {@link dev.felix.bench.compare.CompareBenchmark}; the
 * workloads and their suite live in {@code dev.felix.bench.workload}.
 */
package dev.felix.bench.compare;
