package dev.felix.bench.fanout;

import dev.felix.bench.common.Stamp;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * What every subscriber of one run received: the next sequence number each expects, what each missed (a jump in
 * sequence numbers) or saw twice or out of order, what the broker announced as lost, which subscriptions ended,
 * and the delivery latency of every message (publisher's {@link System#nanoTime()} to the handler), in one
 * HdrHistogram recorder per connection so handler threads of different connections never share one.
 *
 * <p>Thread-safe: a subscriber's handler may run on different threads over time (never two at once); its slots
 * are atomic so each turn sees the last.
 */
final class Deliveries {

    private final AtomicLongArray next;
    private final AtomicLongArray missed;
    private final AtomicLongArray disorder;
    private final AtomicLongArray ended;
    private final Recorder[] latency;
    private final LongAdder delivered = new LongAdder();
    private final LongAdder announced = new LongAdder();
    private volatile String firstEnd;
    /** Messages before this sequence number are warm-up: checked, not timed. */
    private final long timedFrom;

    Deliveries(int subscribers, int connections, long timedFrom) {
        this.timedFrom = timedFrom;
        next = new AtomicLongArray(subscribers);
        missed = new AtomicLongArray(subscribers);
        disorder = new AtomicLongArray(subscribers);
        ended = new AtomicLongArray(subscribers);
        latency = new Recorder[connections];
        for (int i = 0; i < connections; i++) {
            latency[i] = new Recorder(3);
        }
    }

    int subscribers() {
        return next.length();
    }

    /** Subscriber {@code sub}, on connection {@code connection}, received {@code message}. */
    void received(int sub, int connection, byte[] message) {
        received(sub, connection, System.nanoTime(), Stamp.seq(message), Stamp.sentNanos(message));
    }

    /** As {@link #received(int, int, byte[])}, the message read in place (between position and limit). */
    void received(int sub, int connection, java.nio.ByteBuffer message) {
        received(sub, connection, System.nanoTime(), Stamp.seq(message), Stamp.sentNanos(message));
    }

    private void received(int sub, int connection, long now, long seq, long sentNanos) {
        if (seq >= timedFrom) {
            latency[connection].recordValue(Math.max(0, (now - sentNanos) / 1000));
        }
        delivered.increment();
        long expected = next.get(sub);
        if (seq == expected) {
            next.set(sub, seq + 1);
        } else if (seq > expected) {
            missed.addAndGet(sub, seq - expected);
            next.set(sub, seq + 1);
        } else {
            disorder.incrementAndGet(sub); // a duplicate or an event out of order
        }
    }

    /** The broker said {@code count} events will never reach subscriber {@code sub}. */
    void announced(long count) {
        announced.add(count);
    }

    /** Subscriber {@code sub}'s subscription (or its connection) ended with {@code why}. */
    void ended(int sub, String why) {
        if (ended.getAndSet(sub, 1) == 0 && firstEnd == null) {
            firstEnd = why;
        }
    }

    long delivered() {
        return delivered.sum();
    }

    /** Subscribers that have every one of {@code total} messages' worth of sequence numbers behind them. */
    int complete(long total) {
        int n = 0;
        for (int i = 0; i < next.length(); i++) {
            if (next.get(i) >= total || ended.get(i) == 1) {
                n++;
            }
        }
        return n;
    }

    /** Messages of {@code total} that never arrived, counting a subscriber's missing tail. */
    long lost(long total) {
        long sum = 0;
        for (int i = 0; i < next.length(); i++) {
            sum += missed.get(i) + Math.max(0, total - next.get(i));
        }
        return sum;
    }

    long disordered() {
        long sum = 0;
        for (int i = 0; i < disorder.length(); i++) {
            sum += disorder.get(i);
        }
        return sum;
    }

    long announced() {
        return announced.sum();
    }

    int endedCount() {
        int n = 0;
        for (int i = 0; i < ended.length(); i++) {
            n += (int) ended.get(i);
        }
        return n;
    }

    String firstEnd() {
        return firstEnd;
    }

    /** Every latency recorded so far, in microseconds. */
    Histogram latencyMicros() {
        Histogram all = new Histogram(3);
        for (Recorder r : latency) {
            all.add(r.getIntervalHistogram());
        }
        return all;
    }
}
