package dev.felix.bench.watch;

import java.nio.file.Path;

/**
 * Starts fresh instances of one system for the watch workload, one per run, so no run inherits another's
 * data, connections or warm caches.
 */
public interface WatchSystem {

    /** The name accepted by {@code --systems}. */
    String name();

    /**
     * Null when the system can run here; otherwise why not (e.g. {@code "etcd not installed (run
     * bench/peers/install.sh)"}). The harness then reports it as skipped with that reason and never starts it.
     */
    String unavailable();

    /** Starts a new instance with empty data; {@code workDir} is a fresh directory it may use. */
    WatchTarget start(Path workDir) throws Exception;
}
