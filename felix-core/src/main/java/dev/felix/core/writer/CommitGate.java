package dev.felix.core.writer;

import dev.felix.core.FelixError;

import dev.felix.storage.SegmentedLog;
import java.util.concurrent.CompletionException;

/**
 * Decides when appended records are <em>committed</em>: the point at which a batch may be acknowledged and
 * made visible to readers. Everything below a committed offset is committed; commits arrive in offset order.
 *
 * <ul>
 *   <li>{@link #immediate()}: as soon as written (ephemeral shards, memory caches, logs under
 *       {@code periodic} / {@code none}).</li>
 *   <li>{@link #durable(SegmentedLog)}: once forced to disk ({@code on_commit}); flushes are group-committed
 *       by the log, so many batches share one fsync.</li>
 *   <li>A replicated shard's gate (felix-cluster): once a majority of replicas holds the batch, or the
 *       leader alone has it durable, per the stream's consistency.</li>
 * </ul>
 *
 * <p><b>Threads.</b> {@link #appended} and {@link #force} run on the owning writer. A gate may call its
 * {@link Committer} from any thread (a flush thread, a replication session); the {@link LogWriter} moves the
 * call onto the writer.
 */
public interface CommitGate {

    /** Told by a gate how far the log is committed. Thread-safe. */
    interface Committer {
        /** Every record below {@code end} is committed. */
        void committed(long end);

        /** The records appended so far may never commit (a failed fsync): fail what waits. */
        void failed(Throwable cause);

        /**
         * The records below {@code end} will not commit in time: answer their requesters with {@code error}
         * now. They stay in the log and in line: if they commit later they become visible (never answered
         * twice). A replicated gate's quorum window uses this.
         */
        default void refused(long end, FelixError error) {
        }
    }

    /** Writer only: the log now holds every record below {@code end}; tell {@code committer} when they commit. */
    void appended(long end, Committer committer);

    /**
     * Writer only, at shutdown: blocks until every record below {@code end} would pass this gate locally
     * (forces the log), then reports it; a gate that cannot get there alone reports what it can.
     */
    void force(long end, Committer committer);

    /** The writer stops using this gate (its log closes, or the writer moves to another log). Writer only. */
    default void close() {
    }

    /** Committed when written. */
    static CommitGate immediate() {
        return Immediate.INSTANCE;
    }

    /** Committed once durable in {@code log} (group-committed fsync). */
    static CommitGate durable(SegmentedLog log) {
        return new Durable(log);
    }

    /** See {@link #immediate()}. */
    final class Immediate implements CommitGate {
        static final Immediate INSTANCE = new Immediate();

        private Immediate() {
        }

        @Override
        public void appended(long end, Committer committer) {
            committer.committed(end);
        }

        @Override
        public void force(long end, Committer committer) {
            committer.committed(end);
        }
    }

    /** See {@link #durable(SegmentedLog)}. */
    final class Durable implements CommitGate {
        private final SegmentedLog log;

        Durable(SegmentedLog log) {
            this.log = log;
        }

        @Override
        public void appended(long end, Committer committer) {
            log.flush(end).whenComplete((v, error) -> {
                if (error == null) {
                    committer.committed(log.durableOffset());
                } else {
                    committer.failed(error instanceof CompletionException && error.getCause() != null
                            ? error.getCause() : error);
                }
            });
        }

        @Override
        public void force(long end, Committer committer) {
            try {
                log.awaitDurable(end);
                committer.committed(end);
            } catch (RuntimeException e) {
                committer.failed(e);
            }
        }
    }
}
