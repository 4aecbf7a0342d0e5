package dev.felix.cluster.metadata;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * Brings this node's applied metadata up to what the cluster had committed when a caller asked: the barrier
 * behind {@link RaftMetadata#catchUp()}. One round commits a {@link Command.Barrier} through the Raft leader, then
 * waits until this node has applied up to its index. (A read of the leader's commit index would be cheaper, but a
 * leader deposed without knowing it yet answers that with its own, older index; it cannot commit an entry.)
 *
 * <p><b>Coalescing.</b> At most one round is in flight. A caller that arrives while one is in flight joins the
 * <em>next</em> round, which starts when the current one ends: the barrier in flight may have been committed
 * before the change the caller looks for, so joining it would prove nothing. However many callers arrive, the
 * node has at most one barrier in flight.
 *
 * <p><b>Never fails.</b> A round whose barrier is not committed (no leader, no majority, a timeout, a closed client)
 * completes its callers normally after at most {@code timeout}; they then answer from what is applied, as they
 * would have without the barrier. {@code outcome} hears {@code true} for a round that caught up, {@code false}
 * for one that gave up.
 *
 * <p><b>Threads.</b> Thread-safe. Rounds end on {@code completer} (inline once it is shut down): callers' futures
 * complete and the next round starts there, never under this object's lock.
 */
final class CatchUp {

    private final Supplier<CompletableFuture<Long>> committedBarrier;
    private final LongFunction<CompletableFuture<Void>> appliedHere;
    private final Duration timeout;
    private final Executor completer;
    private final Consumer<Boolean> outcome;

    /** Guarded by {@code this}: the round callers join now, started when none is in flight. */
    private CompletableFuture<Void> next;
    /** Guarded by {@code this}. */
    private boolean inFlight;

    /**
     * @param committedBarrier commits a barrier entry; completes with its log index
     * @param appliedHere      completes once this node has applied the given index
     * @param timeout          the longest a round waits for both
     * @param completer        where callers' futures complete
     * @param outcome          hears how each round ended (for metrics)
     */
    CatchUp(Supplier<CompletableFuture<Long>> committedBarrier, LongFunction<CompletableFuture<Void>> appliedHere,
            Duration timeout, Executor completer, Consumer<Boolean> outcome) {
        this.committedBarrier = committedBarrier;
        this.appliedHere = appliedHere;
        this.timeout = timeout;
        this.completer = completer;
        this.outcome = outcome;
    }

    /** Completes once this node has applied what the cluster had committed when this was called (see the class). */
    CompletableFuture<Void> request() {
        CompletableFuture<Void> mine;
        boolean start;
        synchronized (this) {
            if (next == null) {
                next = new CompletableFuture<>();
            }
            mine = next;
            start = !inFlight;
            if (start) {
                inFlight = true;
                next = null;
            }
        }
        if (start) {
            run(mine);
        }
        return mine;
    }

    private void run(CompletableFuture<Void> round) {
        CompletableFuture<Void> done;
        try {
            done = committedBarrier.get().thenCompose(appliedHere::apply);
        } catch (RuntimeException e) {
            done = CompletableFuture.failedFuture(e);
        }
        // Finished on the completer, not on whichever thread ended the round (Ratis's updater, a gRPC thread, the
        // JDK's timeout thread): the next round's barrier is sent from there.
        done.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS).whenComplete((v, e) -> {
            try {
                completer.execute(() -> finish(round, e == null));
            } catch (java.util.concurrent.RejectedExecutionException closing) {
                finish(round, e == null);
            }
        });
    }

    private void finish(CompletableFuture<Void> round, boolean caughtUp) {
        try {
            outcome.accept(caughtUp);
        } catch (RuntimeException e) {
            // a metric that failed must not leave the next round unstarted and its callers waiting for ever
        }
        CompletableFuture<Void> following;
        synchronized (this) {
            following = next;
            next = null;
            inFlight = following != null;
        }
        round.complete(null);
        if (following != null) {
            run(following);
        }
    }
}
