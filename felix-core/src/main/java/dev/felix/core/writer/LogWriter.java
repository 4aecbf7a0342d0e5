package dev.felix.core.writer;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.storage.AppendResult;
import dev.felix.storage.PayloadSource;
import dev.felix.storage.ReadResult;
import dev.felix.storage.SegmentedLog;
import dev.felix.storage.StorageErrorCode;
import dev.felix.storage.StorageException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sequencing half of a shard's or cache's single writer: assigns contiguous offsets, appends batches to
 * the log, waits at the {@link CommitGate}, and hands committed batches back to the {@link Owner} in offset
 * order — first {@link Owner#visible} (readers may now see it), then {@link Owner#answer} (its publishers
 * are acknowledged). Without a log (ephemeral shard, memory cache) offsets live in memory and the gate
 * opens at once, so the same code path serves both.
 *
 * <h2>Threads and ownership</h2>
 * Confined to the owner's {@link WriterLoop}: every method runs on the writer, and so does every
 * {@link Owner} callback (a gate's completion on a flush thread is posted to the writer). The batch objects
 * {@code B} belong to the owner; the writer keeps them in order until they commit. Record arrays passed to
 * {@link #append} are read during the call only.
 *
 * <h2>Failure</h2>
 * A failed append leaves nothing in the log (storage cuts a failed write back) and answers that batch with
 * the error. A failure that makes the log unusable — a failed fsync, a closed log, a batch only partly
 * written — answers every waiting batch and puts the writer in a failed state ({@link #failure()}): later
 * appends are refused with that error until the owner {@linkplain #reset resets} it with a reopened log.
 *
 * @param <B> the owner's batch type
 */
public final class LogWriter<B> {

    private static final Logger LOG = LoggerFactory.getLogger(LogWriter.class);

    /** Record bytes of one log append at most (and never more than half a segment). */
    static final long MAX_APPEND_BYTES = 1L << 20;
    /** Bytes the log adds to each record (its record header). */
    public static final int RECORD_OVERHEAD = 28;

    /** The owner's side. Every method runs on the writer. */
    public interface Owner<B> {
        /** {@code batch} committed: make it visible. Called in offset order, once per batch. */
        void visible(B batch);

        /**
         * Answer {@code batch}'s requesters: {@code error == null} acknowledges it. Called once per batch,
         * after {@link #visible} when it commits.
         */
        void answer(B batch, FelixError error);

        /**
         * {@code batch}'s requesters get {@code error} now, but the batch stays appended and in line: it becomes
         * visible ({@link #visible}) if its gate commits it later, and is never answered again (a replicated
         * gate's quorum window). By default the same as {@link #answer}; an owner whose state already holds the
         * batch keeps it.
         */
        default void refused(B batch, FelixError error) {
            answer(batch, error);
        }

        /**
         * {@code batch} left the writer without becoming visible and never will ({@link #fail}, {@link #reset}): what
         * the owner keeps for it until then can go. Called after its answer, if any. By default nothing.
         */
        default void dropped(B batch) {
        }

        /** The log became unusable; every waiting batch has been answered with {@code error}. */
        void failed(FelixError error);

        /**
         * Records the log held when the writer was {@linkplain #reset(SegmentedLog, long, long, CommitGate)
         * reset} above its committed end are now committed up to {@code end}: readers may see them. No batch
         * object exists for them (they came from disk); readers get them from the log.
         */
        default void recovered(long end) {
        }

        /**
         * One pass of commits is done: every batch it made {@linkplain #visible visible} has been answered. An
         * owner that tells others of what became visible (a cache tells its watchers) does it here rather than in
         * {@link #visible}, so the requesters' answers are handed on first and never wait behind that news.
         */
        default void afterCommits() {
        }
    }

    /** Batches (appended, not yet committed) beyond which new ones are refused at once, not queued. */
    static final int PENDING_HARD_LIMIT_FACTOR = 64;

    /** A batch appended and not yet committed. */
    private static final class Pending<B> {
        final B batch;
        final long end;
        /** Already answered (refused by the gate in time), waiting only to become visible. */
        boolean answered;

        Pending(B batch, long end) {
            this.batch = batch;
            this.end = end;
        }
    }

    private final String label;
    private final WriterLoop loop;
    private final Owner<B> owner;
    private final int maxPendingBatches;
    private final LongSupplier nowMicros;
    private final ArrayDeque<Pending<B>> pending = new ArrayDeque<>();
    private SegmentedLog log;
    private CommitGate gate = CommitGate.immediate();
    /** Bumped by {@link #reset}: completions of an earlier log are ignored. */
    private int generation;
    /** Passes the current generation's gate verdicts to the writer. */
    private CommitGate.Committer committer = new GenerationCommitter(0);
    private long next;
    private long committed;
    /** End of the records found in the log at reset that were not known committed then. */
    private long recoveredEnd;
    /**
     * True while {@link #reset} hands the recovered tail to the gate. A gate that already holds a majority answers at
     * once, on this thread; its verdict then waits for the next writer task, since the owner installs the state
     * {@link Owner#recovered} publishes into only after {@code reset} returns.
     */
    private boolean resetting;
    /** Pending batches already answered (refused by the gate), waiting only to become visible. */
    private int answeredPending;
    private FelixError failure;

    /**
     * @param maxPendingBatches appended batches waiting at the gate before {@link #backlogFull()} says stop
     * @param nowMicros         the timestamp given to appended records
     */
    public LogWriter(String label, WriterLoop loop, Owner<B> owner, int maxPendingBatches, LongSupplier nowMicros) {
        this.label = label;
        this.loop = loop;
        this.owner = owner;
        this.maxPendingBatches = maxPendingBatches;
        this.nowMicros = nowMicros;
    }

    /**
     * Starts (or restarts) sequencing at {@code next} over {@code log} (null = in memory) with {@code gate}.
     * Batches still waiting from before are dropped unanswered: the owner answers or discards them itself.
     */
    public void reset(SegmentedLog log, long next, CommitGate gate) {
        reset(log, next, next, gate);
    }

    /**
     * As {@link #reset(SegmentedLog, long, CommitGate)}, for a log whose records from {@code committed} to
     * {@code next} are not known to be committed (a replicated log reopened: only a majority makes them
     * so). They stay invisible until the gate passes them; then {@link Owner#recovered} is told.
     */
    public void reset(SegmentedLog log, long next, long committed, CommitGate gate) {
        if (committed > next) {
            throw new IllegalArgumentException("committed " + committed + " is past the next offset " + next);
        }
        CommitGate previous = this.gate;
        this.log = log;
        this.gate = gate;
        this.next = next;
        this.committed = committed;
        this.recoveredEnd = next;
        this.failure = null;
        this.generation++;
        this.committer = new GenerationCommitter(generation);
        this.answeredPending = 0;
        Pending<B> dropped;
        while ((dropped = pending.pollFirst()) != null) {
            owner.dropped(dropped.batch);
        }
        if (previous != gate) {
            previous.close();
        }
        if (committed < next) {
            resetting = true;
            try {
                gate.appended(next, committer);
            } finally {
                resetting = false;
            }
        }
    }

    /** Releases the gate (the owner stops using this writer's log). Writer only; idempotent. */
    public void closeGate() {
        gate.close();
        gate = CommitGate.immediate();
        generation++;
        committer = new GenerationCommitter(generation);
    }

    /** Offset the next appended record gets. */
    public long next() {
        return next;
    }

    /** Every offset below this is committed (and was made visible). */
    public long committed() {
        return committed;
    }

    /**
     * Whether enough batches wait at the gate that the owner should stop taking requests for now. Batches
     * the gate already refused (they wait only to become visible) do not count: a replicated writer keeps
     * appending, and refusing, while no majority answers.
     */
    public boolean backlogFull() {
        return pending.size() - answeredPending >= maxPendingBatches;
    }

    /** Whether any appended batch waits at the gate. */
    public boolean hasPending() {
        return !pending.isEmpty();
    }

    /** The newest batch waiting at the gate, or null (lets an owner answer a no-op request after it). */
    public B newestPending() {
        Pending<B> p = pending.peekLast();
        return p == null ? null : p.batch;
    }

    /**
     * The newest batch waiting at the gate whose requesters have not been answered yet, or null. Batches the gate
     * refused wait only to become visible and are never answered again, so nothing may be answered after them.
     * (Refusals cover a prefix of the waiting batches: if any batch is unanswered, the newest is.)
     */
    public B newestUnanswered() {
        Pending<B> p = pending.peekLast();
        return p == null || p.answered ? null : p.batch;
    }

    /** Why the log is unusable, or null. */
    public FelixError failure() {
        return failure;
    }

    /** The log, or null when sequencing in memory. */
    public SegmentedLog log() {
        return log;
    }

    /**
     * Appends {@code count} records as one batch at {@link #next()} and passes it to the gate; the owner built
     * {@code batch} for offsets {@code next() .. next()+count-1}. Returns false when the append failed: the
     * batch was answered with the error and will never be visible.
     *
     * @param records the records to store, one per offset; ignored (may be null) without a log
     */
    public boolean append(B batch, int count, byte[][] records) {
        return appendFrom(batch, count, records == null ? null : PayloadSource.of(Arrays.asList(records)));
    }

    /**
     * {@link #append(Object, int, byte[][])} for records read where they lie (a shard's pooled payloads): the log
     * copies them into its staging buffer, with no array per record. Read only during the call.
     */
    public boolean appendFrom(B batch, int count, PayloadSource records) {
        if (failure != null) {
            owner.answer(batch, failure);
            return false;
        }
        if (pending.size() >= (long) maxPendingBatches * PENDING_HARD_LIMIT_FACTOR) {
            owner.answer(batch, FelixError.of(ErrorCode.UNAVAILABLE, pending.size() + " batches of " + label
                    + " wait for their commit (no majority of replicas answers); new publishes are refused"
                    + " until they catch up"));
            return false;
        }
        if (log != null) {
            FelixError error = write(records);
            if (error != null) {
                owner.answer(batch, error);
                return false;
            }
        }
        next += count;
        pending.addLast(new Pending<>(batch, next));
        gate.appended(next, committer);
        return true;
    }

    /**
     * Forces what waits at the gate through it (shutdown): commits it when the gate can, fails it when it
     * cannot.
     */
    public void force() {
        if (!pending.isEmpty() && failure == null) {
            gate.force(next, committer);
        }
    }

    /**
     * Fails the writer from the owner's side (the owner's own state can no longer follow the log): answers
     * every waiting batch with {@code error} and refuses appends until {@link #reset}.
     */
    public void fail(FelixError error) {
        if (failure == null) {
            failure = error;
        }
        Pending<B> p;
        while ((p = pending.pollFirst()) != null) {
            if (!p.answered) {
                owner.answer(p.batch, error);
            }
            owner.dropped(p.batch);
        }
        answeredPending = 0;
    }

    /**
     * History for a reader behind the tail: records from {@code from}, fewer than {@code until - from}, within
     * the budgets (at least one record when any exists).
     */
    public HistoryRead readHistory(long from, long until, int maxRecords, long maxBytes) {
        int max = (int) Math.max(1, Math.min(maxRecords, until - from));
        ReadResult result;
        try {
            result = log.read(from, max, Math.max(1, maxBytes));
        } catch (StorageException e) {
            return new HistoryRead.Failed(toError(e, "cannot read the log of " + label + " at offset " + from));
        }
        if (result instanceof ReadResult.Trimmed trimmed) {
            long oldest = Math.min(trimmed.oldest(), until);
            return new HistoryRead.Missing(from, oldest - 1, HistoryRead.Reason.RETENTION);
        }
        if (result instanceof ReadResult.Corrupted damaged) {
            // Logged and counted once by the log; here it becomes a range the reader is told about.
            return new HistoryRead.Missing(from, Math.min(damaged.to(), until - 1), HistoryRead.Reason.CORRUPTION);
        }
        var records = ((ReadResult.Records) result).records();
        int n = (int) Math.min(records.size(), until - from);
        if (n == 0) {
            return new HistoryRead.Failed(FelixError.of(ErrorCode.INTERNAL, "the log of " + label
                    + " returned nothing at offset " + from + " below its end " + until));
        }
        return new HistoryRead.Records(n == records.size() ? records : records.subList(0, n));
    }

    /** A storage failure as a Felix error: corruption keeps its code, the rest is unavailability. */
    public static FelixError toError(StorageException e, String context) {
        ErrorCode code = e.code() == StorageErrorCode.CORRUPTION ? ErrorCode.CORRUPTION : ErrorCode.UNAVAILABLE;
        return FelixError.of(code, context + ": " + e.getMessage());
    }

    // ------------------------------------------------------------------ internals

    /** Writes the records in appends of at most {@link #appendLimit()} bytes; null, or the failure. */
    private FelixError write(PayloadSource records) {
        long limit = appendLimit();
        long ts = nowMicros.getAsLong();
        int from = 0;
        int n = records.count();
        while (from < n) {
            int to = from;
            long chunk = 0;
            while (to < n && (to == from || chunk + RECORD_OVERHEAD + records.length(to) <= limit)) {
                chunk += RECORD_OVERHEAD + records.length(to);
                to++;
            }
            AppendResult appended;
            try {
                appended = log.append(from == 0 && to == n ? records : records.range(from, to), ts);
            } catch (StorageException e) {
                FelixError error = toError(e, "cannot append to the log of " + label);
                LOG.error("{}", error.message());
                // Nothing of this append is in the log; but a failed fsync, a closed log, or a batch half
                // written leaves the log unusable for this writer.
                if (from > 0 || e.code() == StorageErrorCode.SYNC_FAILED || e.code() == StorageErrorCode.CLOSED) {
                    logFailed(error);
                }
                return error;
            } catch (RuntimeException e) {
                // Not the log's own failure (the records could not be read, say): nothing of this append was
                // written, but one written before it in this batch would be left half done.
                FelixError error = FelixError.of(ErrorCode.INTERNAL, "cannot append to the log of " + label + ": " + e);
                LOG.error("{}", error.message(), e);
                if (from > 0) {
                    logFailed(error);
                }
                return error;
            }
            long expected = next + from;
            if (appended.firstOffset() != expected) {
                FelixError error = FelixError.of(ErrorCode.INTERNAL, "the log of " + label + " appended at offset "
                        + appended.firstOffset() + " but the writer expected " + expected);
                logFailed(error);
                return error;
            }
            from = to;
        }
        return null;
    }

    private long appendLimit() {
        return Math.min(MAX_APPEND_BYTES, Math.max(1, log.config().segmentBytes() / 2));
    }

    /** Passes a gate's verdict to the writer unless the log was replaced since. */
    private final class GenerationCommitter implements CommitGate.Committer {
        private final int gen;

        GenerationCommitter(int gen) {
            this.gen = gen;
        }

        @Override
        public void committed(long end) {
            if (loop.inWriter() && !resetting) {
                if (gen == generation) {
                    commit(end);
                }
            } else {
                loop.post(() -> {
                    if (gen == generation) {
                        commit(end);
                    }
                });
            }
        }

        @Override
        public void refused(long end, FelixError error) {
            if (loop.inWriter() && !resetting) {
                if (gen == generation) {
                    refuse(end, error);
                }
            } else {
                loop.post(() -> {
                    if (gen == generation) {
                        refuse(end, error);
                    }
                });
            }
        }

        @Override
        public void failed(Throwable cause) {
            if (loop.inWriter() && !resetting) {
                if (gen == generation) {
                    gateFailed(cause);
                }
            } else {
                loop.post(() -> {
                    if (gen == generation) {
                        gateFailed(cause);
                    }
                });
            }
        }
    }

    private void commit(long end) {
        if (committed < recoveredEnd && end > committed) {
            committed = Math.min(end, recoveredEnd);
            owner.recovered(committed);
        }
        Pending<B> p;
        boolean any = false;
        while ((p = pending.peekFirst()) != null && p.end <= end) {
            pending.pollFirst();
            committed = p.end;
            owner.visible(p.batch);
            any = true;
            if (p.answered) {
                answeredPending--;
            } else {
                owner.answer(p.batch, null);
            }
        }
        if (any) {
            owner.afterCommits();
        }
    }

    /** Answers every waiting batch below {@code end} with {@code error}; they stay in line to become visible. */
    private void refuse(long end, FelixError error) {
        for (Pending<B> p : pending) {
            if (p.end > end) {
                break;
            }
            if (!p.answered) {
                p.answered = true;
                answeredPending++;
                owner.refused(p.batch, error);
            }
        }
    }

    private void gateFailed(Throwable cause) {
        logFailed(FelixError.of(ErrorCode.UNAVAILABLE, "records were written to the log of " + label
                + " but forcing them to disk failed (" + cause.getMessage() + "); they may reappear after a"
                + " restart, so a retrying publisher must expect a duplicate"));
    }

    private void logFailed(FelixError error) {
        LOG.error("{}; the log of {} refuses further writes until it is reopened", error.message(), label);
        fail(error);
        owner.failed(error);
    }
}
