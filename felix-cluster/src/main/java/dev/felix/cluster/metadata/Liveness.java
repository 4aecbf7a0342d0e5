package dev.felix.cluster.metadata;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * What this node heard from every node's heartbeats while it was the Raft leader: when, at which incarnation,
 * and the latest replica reports. In memory only; a new leader starts from nothing and grants grace instead
 * ({@link FailoverDecider}).
 *
 * <p><b>Threads.</b> Thread-safe: Ratis query threads record, the decider thread reads a copy.
 *
 * <p><b>Time</b> comes from a monotonic millisecond source (in production {@code System.nanoTime() / 1e6}), so a
 * wall-clock step can neither declare a node down nor hide a silent one.
 */
final class Liveness {

    private final LongSupplier millis;
    private final ConcurrentHashMap<String, FailoverDecider.Heard> heard = new ConcurrentHashMap<>();
    private final LongAdder received = new LongAdder();

    Liveness(LongSupplier millis) {
        this.millis = millis;
    }

    /** A monotonic source: {@link System#nanoTime()} in milliseconds. */
    static Liveness monotonic() {
        return new Liveness(() -> System.nanoTime() / 1_000_000);
    }

    /**
     * Runs {@code r} (on the recording thread; it must not block) whenever a heartbeat reports a replica fenced at
     * a higher epoch than that node's previous heartbeat did: a {@code quorum} failover may now be decidable.
     */
    void onNewlyFenced(Runnable r) {
        onNewlyFenced = r;
    }

    void record(Heartbeat h) {
        FailoverDecider.Heard previous = heard.put(h.nodeId(),
                new FailoverDecider.Heard(millis.getAsLong(), h.incarnation(), h.reports()));
        received.increment();
        if (newlyFenced(previous, h)) {
            onNewlyFenced.run();
        }
    }

    private static boolean newlyFenced(FailoverDecider.Heard previous, Heartbeat h) {
        for (dev.felix.cluster.ReplicaReport r : h.reports()) {
            if (r.fencedEpoch() < 0) {
                continue;
            }
            dev.felix.cluster.ReplicaReport before = previous == null ? null : previous.report(r.key());
            if (before == null || before.fencedEpoch() < r.fencedEpoch()) {
                return true;
            }
        }
        return false;
    }

    private volatile Runnable onNewlyFenced = () -> { };

    Map<String, FailoverDecider.Heard> snapshot() {
        return Map.copyOf(heard);
    }

    long nowMillis() {
        return millis.getAsLong();
    }

    /** Heartbeats received (as leader) since start. */
    long received() {
        return received.sum();
    }
}
