/**
 * Benchmarks of the segmented log alone: {@link dev.felix.bench.storage.StorageBenchmark} ({@code felix bench
 * storage}: the disk's fsync floor, then append throughput and latency per fsync policy) and the JMH append
 * benchmark {@link dev.felix.bench.storage.LogAppendJmh}. Depends on felix-storage only.
 */
package dev.felix.bench.storage;
