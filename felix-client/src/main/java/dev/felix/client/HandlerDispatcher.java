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
 * <p><b>Threads and buffers.</b> Thread-safe: subscriptions schedule from the event loop, handlers run on the pool.
 * Touches no {@code ByteBuf}s.
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
        Runner runner = new Runner(subscription, handler);
        subscription.queue().onReady(runner::signal);
    }

    @Override
    public void close() {
        closed = true;
        if (ownsPool) {
            pool.close();
        }
    }

    /** One subscription's turns on the pool. */
    private final class Runner implements Runnable {
        private final Subscription subscription;
        private final SubscriptionHandler handler;
        private final AtomicBoolean scheduled = new AtomicBoolean();
        private boolean done;

        Runner(Subscription subscription, SubscriptionHandler handler) {
            this.subscription = subscription;
            this.handler = handler;
        }

        void signal() {
            if (closed && !ownsPool) {
                return; // the client closed: its handlers take no more turns on the shared pool
            }
            if (scheduled.compareAndSet(false, true)) {
                try {
                    pool.execute(this);
                } catch (java.util.concurrent.RejectedExecutionException closed) {
                    scheduled.set(false); // the client is closed
                }
            }
        }

        @Override
        public void run() {
            if (done) {
                return;
            }
            try {
                for (int i = 0; i < ITEMS_PER_TURN; i++) {
                    Item item = subscription.next(Duration.ZERO);
                    if (item == null) {
                        if (subscription.ended() && subscription.queued() == 0) {
                            finish(subscription.endCause());
                            return;
                        }
                        break;
                    }
                    if (item instanceof Event e) {
                        handler.onEvent(e);
                    } else if (item instanceof Gap g) {
                        handler.onGap(g);
                    }
                }
            } catch (FelixClientException e) {
                finish(e);
                return;
            } catch (RuntimeException e) {
                subscription.close();
                finish(new FelixClientException(ErrorCode.INTERNAL, "the handler failed: " + e, -1, e));
                return;
            }
            scheduled.set(false);
            if (subscription.queued() > 0 || subscription.ended()) {
                signal(); // more arrived during this turn, or it ended: another turn
            }
        }

        private void finish(FelixClientException cause) {
            done = true;
            handler.onEnd(cause);
        }
    }
}
