package dev.felix.storage;

import java.time.Duration;
import java.util.Objects;

/**
 * <b>Immutable value types; thread-safe.</b>
 *
 * <p>When a log forces appended bytes to the device. Every policy also flushes when a segment is sealed, on
 * {@link SegmentedLog#sync()} / {@link SegmentedLog#flush(long)}, and on {@link SegmentedLog#close()}.
 *
 * <table>
 *   <caption>Policies</caption>
 *   <tr><th>policy</th><th>extra flush trigger</th><th>loss window after power loss</th></tr>
 *   <tr><td>{@link OnCommit}</td><td>the caller's {@link SegmentedLog#flush(long)} after every append (group
 *       commit shares one fdatasync among concurrent callers)</td><td>none for acknowledged records</td></tr>
 *   <tr><td>{@link Periodic}</td><td>a timer every {@code interval} (first tick skipped; missed ticks are
 *       delayed, not bursted)</td><td>one interval</td></tr>
 *   <tr><td>{@link None}</td><td>none</td><td>unbounded (the OS decides); survives a process crash</td></tr>
 * </table>
 */
public sealed interface FsyncPolicy permits FsyncPolicy.OnCommit, FsyncPolicy.Periodic, FsyncPolicy.None {

    /** Default periodic interval (as upstream). */
    Duration DEFAULT_INTERVAL = Duration.ofMillis(250);

    /** The caller flushes after each append and acknowledges only after the flush completed. */
    record OnCommit() implements FsyncPolicy {
        @Override
        public String label() {
            return "on_commit";
        }
    }

    /** A background timer flushes every {@code interval}. */
    record Periodic(Duration interval) implements FsyncPolicy {
        public Periodic {
            Objects.requireNonNull(interval, "interval");
            if (interval.isZero() || interval.isNegative()) {
                throw StorageException.invalidConfig("fsyncPolicy.interval", interval, "must be > 0");
            }
        }

        @Override
        public String label() {
            return "periodic";
        }
    }

    /** Flush only on seal, explicit sync and close. */
    record None() implements FsyncPolicy {
        @Override
        public String label() {
            return "none";
        }
    }

    /** {@code on_commit}. */
    static FsyncPolicy onCommit() {
        return new OnCommit();
    }

    /** {@code periodic} with the default 250 ms interval. */
    static FsyncPolicy periodic() {
        return new Periodic(DEFAULT_INTERVAL);
    }

    /** {@code periodic} with {@code interval} (&gt; 0). */
    static FsyncPolicy periodic(final Duration interval) {
        return new Periodic(interval);
    }

    /** {@code none}. */
    static FsyncPolicy none() {
        return new None();
    }

    /** The configuration spelling: {@code on_commit}, {@code periodic} or {@code none}. */
    String label();
}
