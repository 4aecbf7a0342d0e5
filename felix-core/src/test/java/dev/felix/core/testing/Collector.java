package dev.felix.core.testing;

import dev.felix.core.FelixError;
import dev.felix.core.stream.Delivery;
import dev.felix.core.stream.EventBatch;
import dev.felix.core.stream.GapNotice;
import dev.felix.core.stream.Subscription;
import dev.felix.core.stream.SubscriptionListener;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test consumer of one subscription. It records every {@link Delivery} in order and checks the
 * contract of the consumer's view.
 *
 * <p>Two modes: <em>manual</em> — nobody polls until the test calls {@link #poll(int)} / {@link #drain()}
 * (a consumer that has stalled); <em>draining</em> — a dedicated thread polls until {@code null} every
 * time {@link #onDeliveryReady()} fires, exactly as a transport would. A manual collector can be switched
 * to draining with {@link #startDraining()}; never the other way, so only one thread ever polls.
 */
public final class Collector implements SubscriptionListener, AutoCloseable {

    public final Subscription subscription;
    /** Completed with the error the broker ended the subscription with. */
    public final CompletableFuture<FelixError> ended = new CompletableFuture<>();

    private final List<Delivery> received = new ArrayList<>(); // guarded by this
    private final Semaphore ready = new Semaphore(0);
    private final AtomicInteger readySignals = new AtomicInteger();
    private final AtomicInteger endSignals = new AtomicInteger();
    private final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    private volatile Thread drainer;
    private volatile boolean stopped;

    private Collector(Subscription subscription) {
        this.subscription = subscription;
    }

    /** A consumer that polls only when the test tells it to. */
    public static Collector manual(Subscription subscription) {
        Collector c = new Collector(subscription);
        subscription.listen(c);
        return c;
    }

    /** A consumer that drains on its own thread whenever it is told there is work. */
    public static Collector draining(Subscription subscription) {
        Collector c = manual(subscription);
        c.startDraining();
        return c;
    }

    public long startOffset() {
        return subscription.startOffset();
    }

    // ------------------------------------------------------------------ listener (writer thread)

    @Override
    public void onDeliveryReady() {
        readySignals.incrementAndGet();
        ready.release();
    }

    @Override
    public void onEnd(FelixError error) {
        endSignals.incrementAndGet();
        ended.complete(error);
        ready.release();
    }

    // ------------------------------------------------------------------ consuming

    /** Switches to draining on a dedicated thread. */
    public synchronized void startDraining() {
        if (drainer != null) {
            return;
        }
        Thread t = new Thread(this::drainLoop, "collector-" + subscription.id());
        t.setDaemon(true);
        drainer = t;
        t.start();
        ready.release(); // drain whatever is queued already
    }

    private void drainLoop() {
        try {
            while (!stopped) {
                if (!ready.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    continue; // only to notice stop(); wake-ups come through the semaphore
                }
                ready.drainPermits();
                pollUntilNull(Integer.MAX_VALUE);
            }
        } catch (Throwable t) {
            errors.add(t);
        }
    }

    /** Manual mode: polls at most {@code max} items on the calling thread; returns how many it got. */
    public int poll(int max) {
        if (drainer != null) {
            throw new IllegalStateException("this collector drains on its own thread");
        }
        return pollUntilNull(max);
    }

    /** Manual mode: polls until the queue is empty. */
    public int drain() {
        return poll(Integer.MAX_VALUE);
    }

    private int pollUntilNull(int max) {
        int n = 0;
        while (n < max) {
            Delivery d = subscription.poll();
            if (d == null) {
                break;
            }
            synchronized (this) {
                received.add(d);
            }
            n++;
        }
        return n;
    }

    // ------------------------------------------------------------------ what was received

    public synchronized List<Delivery> deliveries() {
        return List.copyOf(received);
    }

    public List<EventBatch> batches() {
        List<EventBatch> out = new ArrayList<>();
        for (Delivery d : deliveries()) {
            if (d instanceof EventBatch b) {
                out.add(b);
            }
        }
        return out;
    }

    public List<GapNotice> gaps() {
        List<GapNotice> out = new ArrayList<>();
        for (Delivery d : deliveries()) {
            if (d instanceof GapNotice g) {
                out.add(g);
            }
        }
        return out;
    }

    /** Every delivered event as {@code offset=payload}, in delivery order. */
    public List<String> events() {
        List<String> out = new ArrayList<>();
        for (EventBatch b : batches()) {
            for (int i = 0; i < b.eventCount(); i++) {
                out.add((b.baseOffset() + i) + "=" + new String(b.payload(i), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    /** Payloads of every delivered event, in delivery order. */
    public List<String> payloads() {
        List<String> out = new ArrayList<>();
        for (EventBatch b : batches()) {
            for (int i = 0; i < b.eventCount(); i++) {
                out.add(new String(b.payload(i), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    /**
     * Walks the deliveries from the start offset and returns the first offset not yet accounted for.
     * Fails if any batch or gap does not start exactly where the previous item ended: that is a hole
     * (silent loss), a duplicate or a reordering.
     */
    public long coveredTo() {
        return Coverage.walk(startOffset(), deliveries());
    }

    /** Waits until every offset in {@code [start, end)} is accounted for by an event or a gap. */
    public void awaitCoveredTo(long end) {
        Await.until("subscription " + subscription.id() + " covers up to " + end, () -> {
            if (drainer == null) {
                drain();
            }
            checkNoErrors();
            long covered = coveredTo();
            if (covered > end) {
                throw new AssertionError("covered past the tail " + end + ": " + deliveries());
            }
            return covered == end;
        });
    }

    public int readySignals() {
        return readySignals.get();
    }

    public int endSignals() {
        return endSignals.get();
    }

    public void checkNoErrors() {
        Throwable t = errors.peek();
        if (t != null) {
            throw new AssertionError("the consumer thread failed: " + t, t);
        }
    }

    /** Stops the draining thread (if any) without ending the subscription. */
    public void stop() {
        stopped = true;
        Thread t = drainer;
        if (t != null) {
            ready.release();
            try {
                t.join(Await.LIMIT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        stop();
        subscription.close();
    }
}
