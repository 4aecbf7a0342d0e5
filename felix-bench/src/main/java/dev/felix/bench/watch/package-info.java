/**
 * {@code felix bench watch}: many watchers keeping a local copy of a changing key space, on Felix and its peers
 * (etcd watch, NATS JetStream KV, Redis keyspace notifications), each system in a process of its own. Entry:
 * {@link dev.felix.bench.watch.WatchBenchmark}; a {@link dev.felix.bench.watch.WatchSystem} starts one fresh
 * instance per run, a {@link dev.felix.bench.watch.WatchTarget} drives it, and
 * {@link dev.felix.bench.watch.WriteTracker} measures propagation of every write to every mirror. Depends on the
 * client SDK and the peers' client libraries.
 */
package dev.felix.bench.watch;
