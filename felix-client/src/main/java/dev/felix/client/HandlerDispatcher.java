package dev.felix.client;

import dev.felix.wire.ErrorCode;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs every {@link SubscriptionHandler} of a client on a small shared pool of threads
 * ({@link ClientConfig.Builder#handlerThreads}, a {@link HandlerPool}), so ten thousand subscriptions need no
 * thread each, and a subscription that becomes ready costs a queue offer, not a thread wake-up. A
 * subscription's handler runs on one pool thread at a time, in order; after {@value #ITEMS_PER_TURN} items it
 * yields the thread to the other subscriptions (fairness), and a subscription with nothing queued costs
 * nothing. A handler that blocks holds one pool thread: keep handlers short, or hand work off.
 *
 * <p>A {@link NonBlockingHandler} skips the pool: its turns run on the thread that makes the subscription ready,
 * which is the connection's event loop as it reads events (or the application thread for items already queued
 * when the handler is set), still one turn at a time and in order. The thread is marked
 * ({@link NonBlockingScope}) while the handler runs, so a blocking SDK call from it is refused instead of
 * stalling the event loop.
 *
 * <p><b>Threads and buffers.</b> Thread-safe: subscriptions schedule from the event loop, handlers run on the pool.
 * Touches no {@code ByteBuf}s: an in-place turn reads a frame that its session releases after the turn.
 */
final class HandlerDispatcher implements AutoCloseable {

    /** Items one subscription's handler takes before yielding its pool thread. */
    static final int ITEMS_PER_TURN = 256;

    private final HandlerPool pool;
    private volatile boolean closed;
    /** Whether {@link #close} shuts the pool down (false for {@link ClientResources}' shared pool). */
    private final boolean ownsPool;

    HandlerDispatcher(int threads) {
        this.pool = new HandlerPool(threads, "felix-handler-");
        this.ownsPool = true;
    }

    /** Runs handlers on a pool shared with other clients, which closing this leaves running. */
    HandlerDispatcher(HandlerPool shared) {
        this.pool = shared;
        this.ownsPool = false;
    }

    /** Calls {@code handler} for every item of {@code subscription} until it ends. */
    void dispatch(Subscription subscription, SubscriptionHandler handler) {
        Runner runner = new Runner(subscription, handler, handler instanceof NonBlockingHandler);
        if (handler instanceof EventViewHandler) {
            subscription.inPlace(runner);
        }
        subscription.queue().onReady(runner::signal);
    }

    /**
     * The turn of an {@link EventViewHandler} for events read in place from a frame, which skip the receive queue.
     * Event loop only: {@link #enter()}, then {@link #handle} per event, then {@link #leave()}.
     */
    interface InPlaceTurn {
        /**
         * Takes the subscription's turn: false (and nothing taken) while another turn runs, items wait in the queue
         * (they go first), or the subscription has ended. Then the caller queues copies instead.
         */
        boolean enter();

        /** Calls the handler; false once it threw (the subscription is then closed and ended with the cause). */
        boolean handle(EventView view);

        /** Gives the turn back; items that arrived meanwhile get their turn. */
        void leave();
    }

    @Override
    public void close() {
        closed = true;
        if (ownsPool) {
            pool.close();
        }
    }

    /** One subscription's turns on the pool. */
    private final class Runner implements Runnable, InPlaceTurn {
        private final Subscription subscription;
        private final SubscriptionHandler handler;
        /** Whether a turn is queued or running: at most one at a time, whichever thread runs it. */
        private final AtomicBoolean scheduled = new AtomicBoolean();
        /** Turns run on the signalling thread ({@link NonBlockingHandler}) instead of the pool. */
        private final boolean inline;
        private boolean done;

        Runner(Subscription subscription, SubscriptionHandler handler, boolean inline) {
            this.subscription = subscription;
            this.handler = handler;
            this.inline = inline;
        }

        void signal() {
            if (closed && !ownsPool) {
                return; // the client closed: its handlers take no more turns on the shared pool
            }
            if (inline) {
                runHere();
                return;
            }
            if (scheduled.compareAndSet(false, true)) {
                try {
                    pool.execute(this);
                } catch (java.util.concurrent.RejectedExecutionException closed) {
                    scheduled.set(false); // the client is closed
                }
            }
        }

        /** Inline turns on this thread while items keep coming (a loop, not recursion: a burst is not a deep stack). */
        private void runHere() {
            while (scheduled.compareAndSet(false, true)) {
                boolean before = NonBlockingScope.enter();
                boolean more;
                try {
                    more = turn();
                } finally {
                    NonBlockingScope.exit(before);
                }
                if (!more) {
                    return; // finished: scheduled stays set, so no turn ever runs again
                }
                scheduled.set(false);
                if (!subscription.hasPending() && !subscription.ended()) {
                    return;
                }
            }
        }

        @Override
        public boolean enter() {
            if (done || (closed && !ownsPool) || !scheduled.compareAndSet(false, true)) {
                return false;
            }
            if (subscription.hasPending() || subscription.ended()) {
                leave();
                return false;
            }
            return true;
        }

        @Override
        public boolean handle(EventView view) {
            boolean before = NonBlockingScope.enter();
            try {
                ((EventViewHandler) handler).onEvent(view);
                return true;
            } catch (RuntimeException e) {
                fail(e);
                return false;
            } finally {
                NonBlockingScope.exit(before);
            }
        }

        @Override
        public void leave() {
            if (done) {
                return; // finished: scheduled stays set, so no turn ever runs again
            }
            scheduled.set(false);
            if (subscription.hasPending() || subscription.ended()) {
                signal();
            }
        }

        @Override
        public void run() {
            if (!turn()) {
                return;
            }
            scheduled.set(false);
            if (subscription.hasPending() || subscription.ended()) {
                signal(); // more arrived during this turn, or it ended: another turn
            }
        }

        /** Up to {@value #ITEMS_PER_TURN} items; false once the subscription has finished (no more turns). */
        private boolean turn() {
            if (done) {
                return false;
            }
            for (int i = 0; i < ITEMS_PER_TURN; i++) {
                Item item;
                try {
                    item = subscription.next(Duration.ZERO);
                } catch (FelixClientException e) {
                    finish(e); // the subscription ended with this cause
                    return false;
                }
                if (item == null) {
                    if (subscription.ended() && !subscription.hasPending()) {
                        finish(subscription.endCause());
                        return false;
                    }
                    break;
                }
                try {
                    if (item instanceof Event e) {
                        handler.onEvent(e);
                    } else if (item instanceof Gap g) {
                        handler.onGap(g);
                    }
                } catch (RuntimeException e) {
                    fail(e);
                    return false;
                }
            }
            return true;
        }

        /** The handler threw (an SDK error it did not catch keeps its code): the subscription ends. */
        private void fail(RuntimeException e) {
            subscription.close();
            finish(e instanceof FelixClientException fe ? fe
                    : new FelixClientException(ErrorCode.INTERNAL, "the handler failed: " + e, -1, e));
        }

        private void finish(FelixClientException cause) {
            done = true;
            handler.onEnd(cause);
        }
    }
}
