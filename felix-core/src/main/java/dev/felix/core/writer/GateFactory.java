package dev.felix.core.writer;

import dev.felix.core.FelixException;
import dev.felix.storage.SegmentedLog;
import java.util.concurrent.CompletableFuture;

/**
 * Chooses the {@link CommitGate} of a log-backed writer when its log opens. A single node commits on local
 * durability ({@link #LOCAL}); a cluster member commits on replication (felix-cluster), and may find that
 * part of the recovered log is not yet known to be committed.
 *
 * <p><b>Threads.</b> Called on the writer that owns the log, once per open; may block briefly (it may record
 * a leader epoch in the log, an fsync).
 */
@FunctionalInterface
public interface GateFactory {

    /**
     * The gate for {@code log}, just opened (recovered) for {@code ref}.
     *
     * @param onCommit whether the resource's fsync policy is {@code on_commit}
     * @throws FelixException when this node may not write the log now (it does not lead it): the writer
     *                        refuses requests with that error and tries again on its next use
     */
    Opened open(LogRef ref, SegmentedLog log, boolean onCommit) throws FelixException;

    /**
     * Called before the log of {@code ref} is opened: refuses at once when this node may not write it now, so a
     * node that does not lead the unit never opens (and recovers) a log directory that its own replica of the
     * unit may be writing. A single node always may.
     *
     * @throws FelixException as {@link #open} would
     */
    default void checkMayOpen(LogRef ref) throws FelixException {
    }

    /**
     * The unit {@code ref} names was deleted and the broker is about to remove its log directory: let go of any
     * other copy this node keeps there (a cluster member's follower replica of the unit), so that no writer is
     * open in the directory when it goes. The broker removes it once the future completes, however it completes.
     * A single node keeps no other copy. Any thread; must not block.
     */
    default CompletableFuture<Void> releaseCopy(LogRef ref) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * @param gate      commits what is appended from now on
     * @param committed offset below which the recovered log is known committed (at most its tail); the rest
     *                  becomes visible when the gate commits it
     */
    record Opened(CommitGate gate, long committed) {
    }

    /** Local durability: everything in a recovered log is committed. */
    GateFactory LOCAL = (ref, log, onCommit) ->
            new Opened(onCommit ? CommitGate.durable(log) : CommitGate.immediate(), log.tailOffset());
}
