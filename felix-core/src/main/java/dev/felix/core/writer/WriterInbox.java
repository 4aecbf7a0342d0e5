package dev.felix.core.writer;

import dev.felix.core.QueueLimits;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bounded queue of requests waiting for a writer (checkpoint {@code writer_queue}): many producers, one
 * consumer (the writer), limited in events and payload bytes.
 *
 * <p><b>Threads.</b> {@link #offer} and {@link #onWritable} from any thread; {@link #peek}, {@link #poll} and
 * {@link #drainWaiters()} on the writer only. Accounting is two atomic counters, so a full inbox refuses
 * without taking a lock; an empty inbox accepts any single request however large, so an oversized
 * request still makes progress.
 *
 * <p><b>Backpressure.</b> A producer refused by {@link #offer} registers with {@link #onWritable}; its
 * callback runs once the inbox has drained to half its limits (on the writer, or at once on the caller if
 * there is room already). Callbacks must be quick: they only hand control back to the producer's thread.
 *
 * @param <R> the request type
 */
public final class WriterInbox<R> {

    /** How much of the limits one request uses. */
    public interface Weigher<R> {
        int events(R request);

        long bytes(R request);
    }

    private final QueueLimits limits;
    private final Weigher<R> weigher;
    private final ConcurrentLinkedQueue<R> items = new ConcurrentLinkedQueue<>();
    private final AtomicLong events = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final ConcurrentLinkedQueue<Runnable> waiters = new ConcurrentLinkedQueue<>();

    public WriterInbox(QueueLimits limits, Weigher<R> weigher) {
        this.limits = limits;
        this.weigher = weigher;
    }

    public QueueLimits limits() {
        return limits;
    }

    /** Adds {@code request}; false, taking nothing, when the inbox is full. Any thread. */
    public boolean offer(R request) {
        int n = weigher.events(request);
        long b = weigher.bytes(request);
        if (n == 0 && b == 0) {
            items.add(request); // weighs nothing (a barrier): always taken
            return true;
        }
        long e = events.addAndGet(n);
        long total = bytes.addAndGet(b);
        if ((e != n || total != b) && (e > limits.events() || total > limits.bytes())) {
            events.addAndGet(-n);
            bytes.addAndGet(-b);
            return false;
        }
        items.add(request);
        return true;
    }

    /** The oldest request, not removed; null when empty. Writer only. */
    public R peek() {
        return items.peek();
    }

    /** Removes the oldest request and releases its room; null when empty. Writer only. */
    public R poll() {
        R r = items.poll();
        if (r != null) {
            events.addAndGet(-weigher.events(r));
            bytes.addAndGet(-weigher.bytes(r));
        }
        return r;
    }

    public boolean isEmpty() {
        return items.isEmpty();
    }

    /** Events queued right now (for metrics and info). */
    public long events() {
        return events.get();
    }

    /** Runs {@code callback} once the inbox is at most half full; immediately if it is now. Any thread. */
    public void onWritable(Runnable callback) {
        waiters.add(callback);
        if (hasRoom()) {
            runWaiters();
        }
    }

    /** After the writer took requests: runs the waiting producers' callbacks if there is room again. */
    public void drainWaiters() {
        if (!waiters.isEmpty() && hasRoom()) {
            runWaiters();
        }
    }

    /** Runs every waiting callback whatever the room (shutdown: the producers then get a refusal). */
    public void releaseWaiters() {
        runWaiters();
    }

    private boolean hasRoom() {
        return events.get() <= limits.events() / 2 && bytes.get() <= limits.bytes() / 2;
    }

    private void runWaiters() {
        Runnable w;
        while ((w = waiters.poll()) != null) {
            w.run();
        }
    }
}
