package dev.felix.bench.watch;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One running instance of a system under the watch workload: a writer that puts keys, and watchers that
 * each keep a local copy of every key under a prefix (a snapshot, then every change). The workload code
 * is the same for every system; only this interface differs.
 *
 * <p>{@link #put} is called from one writer thread. Watcher listeners run on the system client's own
 * threads, one watcher's calls never concurrently with each other.
 */
public interface WatchTarget extends AutoCloseable {

    /** Receives what a watcher applies to its local copy, in the order it applies it. Must not block. */
    interface Listener {
        /** {@code key} now holds {@code value} in the watcher's copy (from a snapshot or a change). */
        void onValue(String key, byte[] value);
    }

    /** A running watcher: its local copy, kept up to date by the system's own watch mechanism. */
    interface Watcher extends AutoCloseable {
        /** A copy of the local state now. */
        Map<String, byte[]> state();

        /** Why the watcher stopped following changes (connection lost, watch cancelled), or null while it runs. */
        default String failure() {
            return null;
        }

        /** System-specific counters worth reporting (re-watches, snapshots, notifications), possibly empty. */
        default Map<String, Long> counters() {
            return Map.of();
        }

        @Override
        void close();
    }

    /** The system's name as the harness reports it, e.g. {@code etcd}. */
    String name();

    /** What is running: version, durability, client path; one line for the results. */
    String describe();

    /**
     * Whether puts in flight together are applied in the order they were issued. When false, the last value
     * of a key is whichever put the system applied last: the convergence check compares every mirror with
     * the system's own final state ({@link #read}) and reports the keys where that differs from the last
     * put issued as reordered writes, not as divergence. When true, such a difference fails the run.
     */
    boolean orderedPuts();

    /**
     * Issues a put; the future completes when the system acknowledges it (exceptionally if it refuses or
     * fails). Called from one writer thread.
     */
    CompletableFuture<?> put(String key, byte[] value);

    /**
     * Starts a watcher of the keys starting with {@code prefix} on a connection of its own; returns once its
     * initial snapshot is applied (every value of that snapshot went through {@code listener}).
     */
    Watcher startWatcher(String prefix, Listener listener) throws Exception;

    /** The system's own current values of {@code keys} (absent keys left out), read after the run quiesced. */
    Map<String, byte[]> read(List<String> keys) throws Exception;

    /** CPU time used so far by the broker in ns, or -1 if it cannot be told apart. */
    long brokerCpuNanos();

    /** Whether the broker runs inside this JVM (so this process's CPU time already includes it). */
    default boolean brokerInThisJvm() {
        return false;
    }

    /** Stops every watcher, the writer and the broker. */
    @Override
    void close();
}
