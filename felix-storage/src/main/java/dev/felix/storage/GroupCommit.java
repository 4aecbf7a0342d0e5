package dev.felix.storage;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * <b>Thread-safe</b> (details under "Concurrency" below). One instance per log, owned by it.
 *
 * <p>Durability of one log: the durable offset, the flush requests waiting for it, and the flush passes that
 * advance it (group commit).
 *
 * <p><b>How a flush works.</b> {@link #flush(long, boolean)} registers a waiter and makes sure one flush task for this
 * log is queued on the runtime's flush threads. A flush <em>pass</em> (under {@code flushLock}, never under
 * the log's append lock) reads the tail offset <em>first</em>, then forces every segment whose committed
 * bytes are not yet on the device (the active one, any sealed one not yet synced, their sealed indexes and,
 * for new segments, the directory entry), and only then raises {@code durableOffset} to that tail and
 * completes every waiter at or below it. Because appends publish a record's bytes before its offset, every
 * record below the tail read at the start was written before the force started, so one fdatasync covers
 * all requests that arrived before it: concurrent writers share flushes (fan-in), and requests that arrive
 * during a pass are served by the next one.
 *
 * <p><b>Fairness.</b> A log never holds a flush thread across passes: when more work arrived it re-queues
 * itself, so thousands of logs take turns on a few threads.
 *
 * <p><b>Blocking callers lead.</b> A caller that will block on the result ({@link SegmentedLog#awaitDurable})
 * and finds no pass queued runs the pass itself, so a lone writer pays the device flush and no thread
 * hand-off; requests arriving meanwhile are served by the next pass on a flush thread.
 *
 * <p><b>Linger.</b> Passes complete their waiters only after queueing the next pass, so the next device flush
 * overlaps the wake-ups; writers then tend to split into two cohorts that alternate between passes. To merge
 * them, a pass waits a little (at most {@link #MAX_LINGER_NANOS} and 1/{@link #LINGER_FRACTION} of the last
 * flush time) until as many requests wait as the recent peak fan-in. A lone writer (peak 1) never waits.
 *
 * <p><b>Fencing.</b> Before forcing, a pass asks the log's writer session whether another writer started on the
 * directory ({@link WriterHistory#check}); if so the log is stopped like a failed flush, with
 * {@link StorageErrorCode#CONCURRENT_WRITER}, so nothing more is acknowledged.
 *
 * <p><b>Failure.</b> A failed device flush may have dropped dirty pages (Linux reports an fsync error once and
 * may then report success for data it lost), so the log is poisoned: pending and future flushes and appends
 * fail with {@link StorageErrorCode#SYNC_FAILED} until the log is reopened and recovery re-reads what is
 * actually on disk.
 *
 * <p><b>Concurrency:</b> thread-safe. {@code durableOffset} is monotonic except under {@link #lowerDurable}
 * (truncate, which holds {@code flushLock}). Waiters are guarded by {@code waitersLock}; futures are
 * completed outside every lock, on a flush thread (or on the caller for already durable offsets).
 */
final class GroupCommit {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCommit.class);

    /** Upper bound on how long a pass waits for more writers before forcing. */
    static final long MAX_LINGER_NANOS = TimeUnit.MICROSECONDS.toNanos(500);
    /** A pass lingers at most 1/this of the previous flush duration. */
    static final int LINGER_FRACTION = 1;
    /** The peak fan-in the linger aims for loses 1/this of itself per pass, so it follows falling load quickly. */
    static final int PEAK_DECAY = 4;

    private record Waiter(long upto, CompletableFuture<Void> future) {
    }

    private final Path dir;
    private final Supplier<LogState> state;
    private final StorageRuntime runtime;
    private final LogMetrics metrics;

    private final ReentrantLock flushLock = new ReentrantLock();
    private volatile long durableOffset;

    private final ReentrantLock waitersLock = new ReentrantLock();
    private final Condition waiterArrived = waitersLock.newCondition();
    private final PriorityQueue<Waiter> waiters = new PriorityQueue<>(Comparator.comparingLong(Waiter::upto));

    /** Highest offset any pending waiter asked for (guarded by waitersLock for writes; read racily as a hint). */
    private volatile long maxRequested = Long.MIN_VALUE;

    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile boolean syncRequested;
    private volatile StorageException failure;
    private volatile boolean closed;

    /**
     * Decaying peak of requests served per pass, and the last flush duration, for lingering. Written by
     * whichever thread finished a pass (the next pass may already run on another), so volatile; a slightly
     * stale value only changes how long one pass lingers.
     */
    private volatile int peakFanIn;
    private volatile long lastSyncNanos;

    /** Fence check run by every pass before it forces anything: non-null stops the log (see {@link WriterHistory}). */
    private final Supplier<StorageException> fence;

    GroupCommit(final Path dir, final Supplier<LogState> state, final StorageRuntime runtime, final long durableOffset,
                final Supplier<StorageException> fence) {
        this.dir = dir;
        this.state = state;
        this.runtime = runtime;
        this.metrics = runtime.metrics();
        this.durableOffset = durableOffset;
        this.fence = fence;
    }

    long durableOffset() {
        return durableOffset;
    }

    /** Non-null once a flush failed: the log must be reopened. */
    StorageException failure() {
        return failure;
    }

    /** The lock a pass holds; truncate and close take it to exclude passes. */
    ReentrantLock flushLock() {
        return flushLock;
    }

    /**
     * Completes when {@code durableOffset() >= upto}; the caller guarantees {@code upto <= tail}. With
     * {@code inline} (a caller about to block on the result anyway) and no pass queued, the pass runs on the
     * calling thread: a lone writer then pays no thread hand-off, only the device flush.
     */
    CompletableFuture<Void> flush(final long upto, final boolean inline) {
        if (upto <= durableOffset) {
            metrics.groupCommitLate(1); // a pass that started after this append already covered it
            return CompletableFuture.completedFuture(null);
        }
        final StorageException f = failure;
        if (f != null) {
            return CompletableFuture.failedFuture(f);
        }
        if (closed) {
            return CompletableFuture.failedFuture(closedError());
        }
        final CompletableFuture<Void> future = new CompletableFuture<>();
        waitersLock.lock();
        try {
            waiters.add(new Waiter(upto, future));
            if (upto > maxRequested) {
                maxRequested = upto;
            }
            waiterArrived.signal();
        } finally {
            waitersLock.unlock();
        }
        // A pass may have raised durableOffset and drained waiters just before we registered.
        if (upto <= durableOffset) {
            completeWaiters(metrics::groupCommitLate);
        } else if (failure != null) {
            failAll(failure);
        } else if (closed) {
            failAll(closedError());
        } else if (inline && scheduled.compareAndSet(false, true)) {
            run();
        } else {
            schedule();
        }
        return future;
    }

    /** Asks for a background pass even without waiters (segment sealed, periodic tick). */
    void requestSync() {
        syncRequested = true;
        schedule();
    }

    /** Periodic tick: a pass only if something was appended since the last one. */
    void periodicTick() {
        if (!closed && failure == null && state.get().active().nextOffset() > durableOffset) {
            requestSync();
        }
    }

    /** Runs one pass on the calling thread and throws if the log is (or becomes) poisoned. */
    void syncBlocking() {
        finishPass(pass());
        final StorageException f = failure;
        if (f != null) {
            throw f;
        }
    }

    /** Lowers the durable offset after a truncation. Caller holds {@link #flushLock()}. */
    void lowerDurable(final long offset) {
        if (offset < durableOffset) {
            durableOffset = offset;
        }
    }

    /** Sets the durable offset after a reset (everything below it is gone, so trivially durable). Caller holds {@link #flushLock()}. */
    void resetDurable(final long offset) {
        durableOffset = offset;
    }

    /**
     * Removes the waiters at or below {@code offset} (a reset removed the records they wait for) and returns the
     * action failing them with {@code e}; the caller holds {@link #flushLock()} (so no pass completes them first)
     * and runs the action outside every lock.
     */
    Runnable detachAtOrBelow(final long offset, final StorageException e) {
        final List<Waiter> gone = new ArrayList<>();
        waitersLock.lock();
        try {
            final List<Waiter> keep = new ArrayList<>();
            for (final Waiter w : waiters) {
                (w.upto <= offset ? gone : keep).add(w);
            }
            waiters.clear();
            waiters.addAll(keep);
            maxRequested = keep.stream().mapToLong(Waiter::upto).max().orElse(Long.MIN_VALUE);
        } finally {
            waitersLock.unlock();
        }
        return () -> {
            for (final Waiter w : gone) {
                w.future.completeExceptionally(e);
            }
        };
    }

    /** Fails waiters above {@code offset} (their records were truncated away). */
    void failAbove(final long offset) {
        final List<Waiter> failed = new ArrayList<>();
        waitersLock.lock();
        try {
            final List<Waiter> keep = new ArrayList<>();
            for (final Waiter w : waiters) {
                (w.upto > offset ? failed : keep).add(w);
            }
            waiters.clear();
            waiters.addAll(keep);
            maxRequested = keep.stream().mapToLong(Waiter::upto).max().orElse(Long.MIN_VALUE);
        } finally {
            waitersLock.unlock();
        }
        for (final Waiter w : failed) {
            w.future.completeExceptionally(StorageException.of(StorageErrorCode.TRUNCATED,
                "offsets from " + offset + " were truncated before reaching " + w.upto + " became durable"));
        }
    }

    /** Stops the log's durability: later passes do nothing and waiters fail with CLOSED. Caller ran a final pass. */
    void close() {
        flushLock.lock();
        try {
            closed = true;
        } finally {
            flushLock.unlock();
        }
        failAll(closedError());
    }

    private StorageException closedError() {
        return StorageException.of(StorageErrorCode.CLOSED, "log " + dir + " is closed");
    }

    private void schedule() {
        if (scheduled.compareAndSet(false, true)) {
            submit();
        }
    }

    private void submit() {
        try {
            runtime.execute(this::run);
        } catch (final StorageException rejected) {
            scheduled.set(false);
            failAll(rejected);
        }
    }

    /**
     * One flush task: a pass; then, if requests arrived meanwhile, queue the next pass <em>before</em> waking
     * this pass's waiters, so the next device flush overlaps with the wake-ups; re-queueing (rather than
     * looping) lets other logs take their turn on the shared threads.
     */
    private void run() {
        boolean requeued = false;
        try {
            final boolean forced = pass();
            if (moreWork()) {
                requeued = true;
                submit();
            }
            finishPass(forced);
        } catch (final RuntimeException unexpected) {
            LOG.error("flush pass of {} failed unexpectedly", dir, unexpected);
            failAll(StorageException.of(StorageErrorCode.SYNC_FAILED, "flush of " + dir + " failed: " + unexpected, unexpected));
        }
        if (requeued) {
            return;
        }
        scheduled.set(false);
        if (moreWork() && scheduled.compareAndSet(false, true)) {
            submit();
        }
    }

    /** Work a pass could do now: a requested sync, or a waiter above the durable offset. */
    private boolean moreWork() {
        if (closed || failure != null) {
            return false;
        }
        return syncRequested || maxRequested > durableOffset;
    }

    /** Completes (or fails) the waiters a pass settled and records fan-in. */
    private void finishPass(final boolean forced) {
        final StorageException f = failure;
        if (f != null) {
            failAll(f);
            return;
        }
        final int served = completeWaiters(metrics::groupCommit);
        if (forced || served > 0) {
            final int peak = peakFanIn;
            peakFanIn = Math.max(served, peak - (peak + PEAK_DECAY - 1) / PEAK_DECAY);
        }
    }

    /** Forces what is pending and raises the durable offset; true when a device flush was issued. */
    private boolean pass() {
        boolean forced = false;
        long nanos = 0;
        flushLock.lock();
        try {
            if (closed || failure != null) {
                return false;
            }
            linger();
            syncRequested = false;
            final StorageException fenced = fence.get();
            if (fenced != null) {
                failure = fenced; // another writer took over the directory: stop before acknowledging anything
                return false;
            }
            final LogState st = state.get();
            // Read the tail before forcing: every record below it is fully written before the force starts.
            final long target = st.active().nextOffset();
            final long t0 = System.nanoTime();
            forced = forceAll(st);
            nanos = System.nanoTime() - t0;
            if (forced) {
                metrics.sync(nanos);
                lastSyncNanos = nanos;
            }
            if (target > durableOffset) {
                durableOffset = target;
            }
        } catch (final IOException e) {
            metrics.syncFailure();
            final StorageException f = StorageException.of(StorageErrorCode.SYNC_FAILED, "flush of log " + dir
                + " failed: records from offset " + durableOffset + " may not be on the device; the log refuses "
                + "writes until it is reopened: " + e, e);
            LOG.error("device flush failed for {}; durability from offset {} is not confirmed, log poisoned until reopened",
                dir, durableOffset, e);
            failure = f;
        } finally {
            flushLock.unlock();
        }
        return forced;
    }

    /**
     * When recent passes served several writers, give the ones still on their way a moment to arrive so they
     * share this flush instead of waiting a whole flush more (writers otherwise settle into two cohorts that
     * alternate between passes). Stops as soon as as many requests wait as the recent peak.
     */
    private void linger() {
        final int target = peakFanIn;
        if (target < 2 || lastSyncNanos <= 0) {
            return;
        }
        final long budget = Math.min(MAX_LINGER_NANOS, lastSyncNanos / LINGER_FRACTION);
        final long deadline = System.nanoTime() + budget;
        waitersLock.lock();
        try {
            long left = budget;
            while (waiters.size() < target && left > 0) {
                try {
                    left = waiterArrived.awaitNanos(left);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                left = Math.min(left, deadline - System.nanoTime());
            }
        } finally {
            waitersLock.unlock();
        }
    }

    /** Forces everything not yet on the device; true when at least one force was issued. */
    private boolean forceAll(final LogState st) throws IOException {
        boolean forced = false;
        boolean needDir = false;
        final List<Segment> all = st.all();
        for (final Segment seg : all) {
            if (seg.deleted) {
                continue;
            }
            try {
                final long size = seg.size();
                if (seg.syncedSize < size) {
                    seg.log.force();
                    seg.syncedSize = size;
                    forced = true;
                }
                if (seg.sealed && !seg.indexSynced) {
                    syncIndex(seg);
                    seg.indexSynced = true;
                    forced = true;
                }
                if (!seg.dirSynced) {
                    needDir = true;
                }
            } catch (final ClosedChannelException e) {
                if (!seg.deleted) {
                    throw e;
                }
                // removed by retention while we were forcing it: nothing left to make durable
            }
        }
        if (needDir) {
            SegmentFiles.fsyncDirectory(dir);
            for (final Segment seg : all) {
                seg.dirSynced = true;
            }
            forced = true;
        }
        return forced;
    }

    /** Sealed index: rewrite if an append-time write failed, then force. Index trouble never fails a flush. */
    private void syncIndex(final Segment seg) {
        try {
            if (seg.indexDirty) {
                IndexFile.rewrite(seg.index, seg.baseOffset, seg.sparse);
                seg.indexDirty = false;
            }
            seg.index.force();
        } catch (final IOException e) {
            if (!seg.deleted) {
                metrics.indexWriteFailure();
                LOG.warn("could not write index {} (it will be rebuilt at next open): {}", seg.indexPath, e.toString());
            }
        }
    }

    /**
     * Completes the waiters the durable offset now covers, after telling {@code record} how many: counted
     * before any future completes, so a caller that saw its flush complete also sees it in the metrics.
     */
    private int completeWaiters(final IntConsumer record) {
        final long d = durableOffset;
        List<Waiter> done = null;
        waitersLock.lock();
        try {
            while (!waiters.isEmpty() && waiters.peek().upto <= d) {
                if (done == null) {
                    done = new ArrayList<>();
                }
                done.add(waiters.poll());
            }
        } finally {
            waitersLock.unlock();
        }
        if (done == null) {
            record.accept(0);
            return 0;
        }
        record.accept(done.size());
        for (final Waiter w : done) {
            w.future.complete(null);
        }
        return done.size();
    }

    private void failAll(final StorageException e) {
        final List<Waiter> failed;
        waitersLock.lock();
        try {
            failed = new ArrayList<>(waiters);
            waiters.clear();
            maxRequested = Long.MIN_VALUE;
        } finally {
            waitersLock.unlock();
        }
        for (final Waiter w : failed) {
            w.future.completeExceptionally(e);
        }
    }
}
