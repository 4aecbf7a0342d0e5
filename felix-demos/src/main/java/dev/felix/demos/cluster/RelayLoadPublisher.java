package dev.felix.demos.cluster;

import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.PublishAck;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.wire.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The publisher of one stream in {@code felix demo cluster-relay-load}, connected to the stream's leader: a batch per
 * tick, at most {@link #IN_FLIGHT} unacknowledged, and per step the offsets its acknowledgements named (the step's
 * range, which the checker holds every subscriber to).
 *
 * <p><b>Threads.</b> {@link #beginStep}, {@link #send} and {@link #endStep} from the run's thread; acknowledgements
 * arrive on the client's threads. The step figures are read after {@link #endStep}.
 */
final class RelayLoadPublisher implements AutoCloseable {

    /** Batches sent but not acknowledged at most: the publisher waits for acknowledgements beyond it. */
    static final int IN_FLIGHT = 256;

    final StreamRef stream;
    private final FelixClient client;
    private final Publisher publisher;
    private final Semaphore inflight = new Semaphore(IN_FLIGHT);
    private final AtomicLong first = new AtomicLong();
    private final AtomicLong lastAck = new AtomicLong();
    private final AtomicLong count = new AtomicLong();
    private volatile String problem;
    /** The last offset acknowledged in any step. */
    long last = -1;
    long stepFirst;
    long stepLast;
    long stepCount;

    RelayLoadPublisher(StreamRef stream, FelixClient client) {
        this.stream = stream;
        this.client = client;
        this.publisher = client.publisher(stream);
    }

    /** How long the warm-up publish is retried while the leader answers {@code unavailable}. */
    static final long WARM_UP_PATIENCE_MILLIS = 30_000;

    /**
     * Publishes one event and waits for it: the run's warm-up. A leader that was just placed answers {@code
     * unavailable} until it has taken the shard over, so that answer is retried (every 50 ms, for at most {@link
     * #WARM_UP_PATIENCE_MILLIS}); an unavailable publish wrote nothing, so the retry cannot duplicate it.
     */
    long publishOne(String payload) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WARM_UP_PATIENCE_MILLIS);
        while (true) {
            try {
                long o = publisher.publish(payload.getBytes(StandardCharsets.UTF_8)).firstOffset();
                last = Math.max(last, o);
                return o;
            } catch (FelixClientException e) {
                if (e.code() != ErrorCode.UNAVAILABLE || System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                Thread.sleep(50); // pacing a retry against the leader, not awaiting a condition here
            }
        }
    }

    void beginStep() {
        first.set(Long.MAX_VALUE);
        lastAck.set(-1);
        count.set(0);
    }

    /** Sends one batch of {@code events} events (waits only if {@link #IN_FLIGHT} are unacknowledged). */
    void send(int step, long tick, int events) throws InterruptedException {
        List<byte[]> batch = new ArrayList<>(events);
        for (int i = 0; i < events; i++) {
            batch.add((stream.stream() + "-" + step + "-" + tick + "-" + i).getBytes(StandardCharsets.UTF_8));
        }
        inflight.acquire();
        publisher.publishBatchAsync(null, batch).whenComplete((PublishAck ack, Throwable err) -> {
            try {
                if (err != null) {
                    if (problem == null) {
                        problem = "a publish failed: " + err;
                    }
                    return;
                }
                first.accumulateAndGet(ack.firstOffset(), Math::min);
                lastAck.accumulateAndGet(ack.firstOffset() + ack.count() - 1, Math::max);
                count.addAndGet(ack.count());
            } finally {
                inflight.release(); // after the figures: endStep reads them once every permit is back
            }
        });
    }

    /** Waits for every acknowledgement of the step, then fixes its range. */
    void endStep() throws InterruptedException {
        if (!inflight.tryAcquire(IN_FLIGHT, 30, TimeUnit.SECONDS)) {
            problem = "publishes were not acknowledged within 30 s";
            return;
        }
        inflight.release(IN_FLIGHT);
        stepFirst = first.get();
        stepLast = lastAck.get();
        stepCount = count.get();
        last = Math.max(last, stepLast);
    }

    /** What went wrong publishing, or null. */
    String problem() {
        return problem;
    }

    @Override
    public void close() {
        client.close();
    }
}
