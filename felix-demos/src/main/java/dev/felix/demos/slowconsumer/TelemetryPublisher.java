package dev.felix.demos.slowconsumer;

import dev.felix.client.FelixClientException;
import dev.felix.client.Publisher;
import dev.felix.demos.common.BackpressureWait;
import dev.felix.demos.common.Pacer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Publishes telemetry at the target rate, unacknowledged. Missed ticks are skipped: a publisher held
 * back by backpressure loses throughput, which is exactly what the demo measures.
 *
 * <p>Each tick's messages (each with its own sequence number and timestamp) go out as one
 * unacknowledged batch, and the publisher waits until it is written before the next tick, so
 * transport backpressure reaches it within one tick. Upstream publishes them one call each; in this
 * SDK every {@code send} is its own frame, event-loop task and QUIC packet, and at 20,000/s on two
 * cores that overhead alone starves the subscribers (see docs/demos.md).
 */
final class TelemetryPublisher {

    /** Subscribers' head start before the first message (upstream: 300 ms). */
    static final long HEAD_START_MILLIS = 300;

    private final Publisher publisher;
    private final int payloadBytes;
    private final Pacer pacer;
    private final Thread thread;
    private volatile boolean stop;
    private volatile boolean abandon;
    private volatile long published;
    private volatile long errors;
    /**
     * How far behind its schedule the publisher fell: for each write, the time it took beyond one tick.
     * A write that completes within its tick (however busy the machine) costs the schedule nothing; only a
     * write held back longer — flow control from a broker that stopped reading — makes the publisher
     * slow down. (All write time was counted here before, which made {@code drop_new}, whose machine does
     * the most work, look the most held back.)
     */
    private volatile long behindNanos;
    /** Sequence number of the next message; advanced only by messages that were written. */
    private long seq;

    /** Most messages in one batch (a frame's worth). */
    private final int perBatch;

    TelemetryPublisher(Publisher publisher, long rate, int payloadBytes) {
        this.perBatch = dev.felix.demos.common.FrameBudget.messagesPerBatch(payloadBytes);
        this.publisher = publisher;
        this.payloadBytes = payloadBytes;
        this.pacer = new Pacer(rate, Pacer.Missed.SKIP);
        this.thread = new Thread(this::loop, "demo-publisher");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    long published() {
        return published;
    }

    long errors() {
        return errors;
    }

    /** Nanoseconds so far by which writes held the publisher back beyond their tick. */
    long behindNanos() {
        return behindNanos;
    }

    /** Stops and waits up to {@code timeout}; a publisher still stuck after that gives up its writes. */
    void stopAndJoin(Duration timeout) throws InterruptedException {
        stop = true;
        thread.join(timeout.toMillis());
        abandon = true;
        thread.join(1000);
    }

    private void loop() {
        try {
            TimeUnit.MILLISECONDS.sleep(HEAD_START_MILLIS); // the demo's schedule, not a wait for a condition
        } catch (InterruptedException e) {
            return;
        }
        List<byte[]> batch = new ArrayList<>();
        while (!stop) {
            int n = pacer.awaitTick(() -> stop);
            if (n < 0) {
                break;
            }
            long now = TelemetryPayload.now();
            long before = System.nanoTime();
            // A tick's messages in as few batches as fit a frame (one, unless --rate and --payload are large).
            for (int from = 0; from < n && !abandon; from += perBatch) {
                int count = Math.min(perBatch, n - from);
                batch.clear();
                for (int i = 0; i < count; i++) {
                    batch.add(new TelemetryPayload(seq + i, now).encode(payloadBytes));
                }
                boolean ok;
                try {
                    ok = await(publisher.sendBatch(List.copyOf(batch)));
                } catch (FelixClientException e) {
                    ok = false;
                }
                if (ok) {
                    seq += count;
                    published += count;
                } else {
                    errors += count;
                }
            }
            behindNanos += Math.max(0, System.nanoTime() - before - pacer.tickNanos());
        }
    }

    private boolean await(CompletableFuture<Void> f) {
        return BackpressureWait.await(f, () -> abandon);
    }
}
