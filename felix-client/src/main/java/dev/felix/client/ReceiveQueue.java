package dev.felix.client;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Checkpoint {@code client_receive_queue}: items received for one subscription and not yet taken by the
 * application, bounded in events and payload bytes.
 *
 * <p><b>Threads and buffers.</b> Producers are the subscription's event-stream readers (event loop); the consumer
 * is one application thread (or a handler thread); a lock guards the counters. Items hold decoded copies, never a
 * {@code ByteBuf}.
 *
 * <p>Producers are the subscription's event-stream readers (event loop); the consumer is the
 * application thread. Under {@link ReceivePolicy#BLOCK} a producer that finds the queue full stops
 * reading (the limit can be passed by what was already decoded from one read) and is resumed when the
 * consumer has drained it to half. Under the drop policies the dropped range is reported as a
 * {@code client_queue_overflow} {@link Gap}.
 *
 * <p>Every queue of a client also draws on the client's {@link ReceiveBudget}: an event the budget does not
 * admit is treated as if this queue were full (its policy applies), and the bytes held are charged to the budget
 * until they are taken, evicted or the queue is closed.
 */
final class ReceiveQueue {

    private final int maxEvents;
    private final long maxBytes;
    private final ReceivePolicy policy;
    private final Runnable onHalfEmpty;
    private final ReceiveBudget budget;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final ArrayDeque<Item> items = new ArrayDeque<>();
    private long events;
    private long bytes;
    private boolean producerWaiting;
    private boolean ended;
    private long dropped;
    /** Closed: nothing more is added and nothing held (the budget got its bytes back). */
    private boolean closed;
    /** Told when the queue goes from empty to non-empty, and when it ends (a handler dispatcher). */
    private volatile Runnable readyListener;

    ReceiveQueue(int maxEvents, long maxBytes, ReceivePolicy policy, Runnable onHalfEmpty) {
        this(maxEvents, maxBytes, policy, onHalfEmpty, ReceiveBudget.unlimited());
    }

    ReceiveQueue(int maxEvents, long maxBytes, ReceivePolicy policy, Runnable onHalfEmpty, ReceiveBudget budget) {
        this.maxEvents = maxEvents;
        this.maxBytes = maxBytes;
        this.policy = policy;
        this.onHalfEmpty = onHalfEmpty;
        this.budget = budget;
        budget.queueOpened();
    }

    ReceivePolicy policy() {
        return policy;
    }

    /** Sets who is told when items arrive in an empty queue or the queue ends; told at once if items wait. */
    void onReady(Runnable listener) {
        readyListener = listener;
        boolean now;
        lock.lock();
        try {
            now = !items.isEmpty() || ended;
        } finally {
            lock.unlock();
        }
        if (now) {
            listener.run();
        }
    }

    /**
     * Whether an event of {@code size} bytes fits now: always in an empty queue, else within this queue's limits
     * and admitted by the client's budget.
     */
    boolean hasRoom(int size) {
        lock.lock();
        try {
            return fits(size, true);
        } finally {
            lock.unlock();
        }
    }

    /** Whether the client's budget lets this queue take more now (always when empty). */
    boolean admitsMore() {
        lock.lock();
        try {
            if (budget.admits(events, bytes, 0)) {
                return true;
            }
            budget.exhausted.increment();
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** Bytes of the events held. */
    long bytes() {
        lock.lock();
        try {
            return bytes;
        } finally {
            lock.unlock();
        }
    }

    private boolean fits(int size, boolean count) {
        if (events == 0) {
            return true;
        }
        if (events + 1 > maxEvents || bytes + size > maxBytes) {
            return false;
        }
        if (!budget.admits(events, bytes, size)) {
            if (count) {
                budget.exhausted.increment();
            }
            return false;
        }
        return true;
    }

    /**
     * Adds an item. Returns false when the queue is now at or over its limits and the producer should
     * pause (it will be resumed through {@code onHalfEmpty}).
     */
    boolean add(Item item) {
        boolean wasEmpty;
        boolean full;
        lock.lock();
        try {
            if (closed) {
                return true; // closed by the application: nothing more is kept
            }
            wasEmpty = items.isEmpty();
            items.addLast(item);
            if (item instanceof Event e) {
                events++;
                bytes += e.payload().length;
                budget.charge(e.payload().length);
            }
            notEmpty.signal();
            full = events >= maxEvents || bytes >= maxBytes;
            if (!full && item instanceof Event && !budget.admits(events, bytes, 0)) {
                budget.exhausted.increment();
                full = true; // the client's budget is spent and this queue holds more than its share
            }
            if (full) {
                producerWaiting = true;
            }
        } finally {
            lock.unlock();
        }
        Runnable l = readyListener;
        if (wasEmpty && l != null) {
            l.run();
        }
        return !full;
    }

    /**
     * {@link ReceivePolicy#DROP_OLD}: evicts the oldest events until {@code size} more bytes fit; each
     * shard's evicted range becomes one gap at the head. Returns the number of events evicted.
     */
    long evictOldest(int size, StreamRef stream) {
        lock.lock();
        try {
            Map<Integer, long[]> ranges = new HashMap<>(); // shard -> {from, to}
            long evicted = 0;
            while (!items.isEmpty() && !fits(size, false)) {
                Item head = items.pollFirst();
                long from;
                long to;
                int shard;
                if (head instanceof Event e) {
                    events--;
                    bytes -= e.payload().length;
                    budget.release(e.payload().length);
                    evicted++;
                    shard = e.shard();
                    from = e.offset();
                    to = e.offset();
                } else {
                    Gap g = (Gap) head;
                    shard = g.shard();
                    from = g.from();
                    to = g.to();
                }
                long[] r = ranges.get(shard);
                if (r == null) {
                    ranges.put(shard, new long[] {from, to});
                } else {
                    r[1] = to;
                }
            }
            ranges.forEach((shard, r) -> items.addFirst(new Gap(stream, shard, r[0], r[1], "client_queue_overflow")));
            dropped += evicted;
            return evicted;
        } finally {
            lock.unlock();
        }
    }

    void countDropped(long n) {
        lock.lock();
        try {
            dropped += n;
        } finally {
            lock.unlock();
        }
    }

    long dropped() {
        lock.lock();
        try {
            return dropped;
        } finally {
            lock.unlock();
        }
    }

    /** No more items will be added; a waiting consumer wakes up. */
    void end() {
        lock.lock();
        try {
            if (!ended) {
                budget.queueClosed(); // it no longer needs a share
            }
            ended = true;
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
        Runnable l = readyListener;
        if (l != null) {
            l.run();
        }
    }

    /** The next item, waiting up to {@code timeoutNanos}; null on timeout or when ended and empty. */
    Item poll(long timeoutNanos) throws InterruptedException {
        Item item;
        boolean resume = false;
        lock.lock();
        try {
            long remaining = timeoutNanos;
            while (items.isEmpty()) {
                if (ended || remaining <= 0) {
                    return null;
                }
                remaining = notEmpty.awaitNanos(remaining);
            }
            item = items.pollFirst();
            if (item instanceof Event e) {
                events--;
                bytes -= e.payload().length;
                budget.release(e.payload().length);
            }
            if (producerWaiting && events <= maxEvents / 2 && bytes <= maxBytes / 2
                    && budget.admits(events, bytes, 0)) {
                producerWaiting = false;
                resume = true;
            }
        } finally {
            lock.unlock();
        }
        if (resume) {
            onHalfEmpty.run();
        }
        return item;
    }

    /**
     * The application closed the subscription: ends the queue and discards what it holds, giving its bytes back
     * to the client's budget. Idempotent.
     */
    void close() {
        end();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            budget.release(bytes);
            items.clear();
            events = 0;
            bytes = 0;
        } finally {
            lock.unlock();
        }
    }

    /** Whether no item waits: no event and no gap notice ({@link #size()} counts events only). */
    boolean isEmpty() {
        lock.lock();
        try {
            return items.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    boolean endedAndEmpty() {
        lock.lock();
        try {
            return ended && items.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    long size() {
        lock.lock();
        try {
            return events;
        } finally {
            lock.unlock();
        }
    }
}
