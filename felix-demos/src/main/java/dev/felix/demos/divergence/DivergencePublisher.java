package dev.felix.demos.divergence;

import dev.felix.client.FelixClientException;
import dev.felix.demos.common.BackpressureWait;
import dev.felix.demos.common.Pacer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Publishes the change sequence at the target rate. Missed ticks burst (the sequence is fixed; a
 * throttled publisher catches up rather than skipping changes). A tick's changes go out as one write (one
 * change per tick below 1,000/s), awaited before the next tick, so backpressure reaches the publisher
 * within one tick; ticks that fell due while a write was outstanding go out together in the next one, so a
 * write that takes longer than a tick (a cache put waits for its acknowledgement) does not cap the rate.
 * The published count moves as the broker accepts each change, not per write, so the rate measured
 * between two instants does not depend on where a write happened to be.
 */
final class DivergencePublisher {

    /** Most changes in one write when the publisher has fallen behind its ticks. */
    private static final int MAX_BATCH = 1024;

    private final ChangeGenerator generator;
    private final ChangeSource.Writer writer;
    private final Pacer pacer;
    private final Thread thread;
    /** Changes the broker accepted; counted as each is (a cache put's acknowledgement arrives on its own). */
    private final AtomicLong published = new AtomicLong();
    private volatile boolean stop;
    private volatile boolean abandon;
    private volatile long errors;

    /** Most changes in one write: {@link #MAX_BATCH}, fewer when large payloads would not fit one frame. */
    private final int maxBatch;

    DivergencePublisher(ChangeGenerator generator, ChangeSource.Writer writer, long rate, int payloadBytes) {
        this.maxBatch = Math.min(MAX_BATCH, dev.felix.demos.common.FrameBudget.messagesPerBatch(payloadBytes));
        this.generator = generator;
        this.writer = writer;
        this.pacer = new Pacer(rate, Pacer.Missed.BURST);
        this.thread = new Thread(this::loop, "demo-publisher");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Stops publishing after the current message. */
    void stop() {
        stop = true;
    }

    /** Stops and waits up to {@code timeout}; a publisher still stuck after that gives up its writes. */
    void stopAndJoin(Duration timeout) throws InterruptedException {
        stop = true;
        thread.join(timeout.toMillis());
        abandon = true;
        thread.join(1000);
    }

    long published() {
        return published.get();
    }

    long errors() {
        return errors;
    }

    private void loop() {
        while (!stop) {
            int n = pacer.awaitDue(() -> stop, maxBatch);
            if (n < 0) {
                break;
            }
            List<ChangePayload> tick = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                tick.add(generator.next()); // the authority moves first, whether or not the publish succeeds
            }
            AtomicLong accepted = new AtomicLong();
            boolean ok;
            try {
                ok = await(writer.write(tick, k -> {
                    accepted.addAndGet(k);
                    published.addAndGet(k);
                }));
            } catch (FelixClientException e) {
                ok = false;
            }
            if (!ok) {
                errors += n - accepted.get();
            }
        }
    }

    private boolean await(CompletableFuture<Void> f) {
        return BackpressureWait.await(f, () -> abandon);
    }
}
