package dev.felix.demos.divergence;

import java.time.Duration;
import java.util.List;

/**
 * One consumer's local copy of the keyspace and whatever keeps it current: a stream subscriber applying
 * changes ({@link DivergenceConsumer}) or a cache mirror ({@link MirrorReplica}). The control loop stalls
 * and releases it; the run waits for it to reach the end of what was published and diffs it against the
 * authority.
 *
 * <p>{@link #setStalled} and {@link #stop} are called by the control loop only; everything else may be
 * read from any thread.
 */
interface Replica {

    /** {@code consumer-N}. */
    String name();

    /** Starts consuming (the copy is already subscribed or watching). */
    void start();

    /** Stops reading (true) or reads again (false), keeping the subscription or watch. */
    void setStalled(boolean stalled);

    boolean stalled();

    /** Changes applied so far. */
    long applied();

    /** Keys whose local value differs from {@code truth}, ascending. */
    List<Integer> wrongKeys(Authority.Snapshot truth);

    /** What the live views show for it now. */
    DivergenceTick.Row row(Authority.Snapshot truth);

    /** Whether every offset below {@code end} has been applied, announced as missed, or replaced by a snapshot. */
    boolean reached(long end);

    /** Why its subscription or watch ended before the run did, or null. */
    String endedEarly();

    /** Stops consuming; waits up to {@code timeout} for its thread, then closes the subscription or watch. */
    void stop(Duration timeout) throws InterruptedException;

    /** Its outcome: {@code wrong} from the final diff, whether it was stalled mid-run, offsets up to {@code end}. */
    ConsumerOutcome outcome(List<Integer> wrong, boolean stalledMidRun, long end);
}
