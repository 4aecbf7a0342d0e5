package dev.felix.bench.system;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Bounds acknowledged-but-unconfirmed publishes of a durable publisher: before more are sent, the
 * oldest outstanding acknowledgements are awaited until at most {@link #LIMIT} messages are
 * outstanding. The same bound applies to every durable system (Felix durable streams, JetStream), so
 * their throughput figures pipeline equally deep. Used by the publisher's thread only.
 */
final class AckWindow {

    /** Messages published but not yet acknowledged, at most. */
    static final int LIMIT = 256;
    /** How long one acknowledgement may take before the run fails. */
    private static final long TIMEOUT_SECONDS = 30;

    private record Pending(CompletableFuture<?> ack, int count) {
    }

    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private int outstanding;

    /** Waits until {@code count} more messages fit in the window. */
    void reserve(int count) throws Exception {
        while (!pending.isEmpty() && outstanding + count > LIMIT) {
            awaitOldest();
        }
    }

    /** Records the acknowledgement of {@code count} messages just published. */
    void add(CompletableFuture<?> ack, int count) {
        pending.addLast(new Pending(ack, count));
        outstanding += count;
    }

    /** Waits for every outstanding acknowledgement. */
    void drain() throws Exception {
        while (!pending.isEmpty()) {
            awaitOldest();
        }
    }

    private void awaitOldest() throws Exception {
        Pending p = pending.removeFirst();
        outstanding -= p.count();
        p.ack().get(TIMEOUT_SECONDS, TimeUnit.SECONDS); // a failed publish fails the run
    }
}
