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
 * <p><b>Late heartbeats.</b> A heartbeat can arrive after a newer one from the same node: Ratis retried it, or it
 * waited in a connection while the node sent the next. Recording it would put older replica reports back and date
 * the node's last sign of life later than it was, so one numbered at or below the last recorded of the same
 * incarnation is dropped and counted ({@link #stale()}). A new incarnation (a restart) is recorded whatever its
 * number, and so is an unnumbered heartbeat (from a node of an earlier version).
 *
 * <p><b>Time</b> comes from a monotonic millisecond source (in production {@code System.nanoTime() / 1e6}), so a
 * wall-clock step can neither declare a node down nor hide a silent one.
 */
final class Liveness {

    private final LongSupplier millis;
    private final ConcurrentHashMap<String, FailoverDecider.Heard> heard = new ConcurrentHashMap<>();
    private final LongAdder received = new LongAdder();
    private final LongAdder stale = new LongAdder();

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

    /**
     * Records {@code h} as heard now, unless it is late (see the class documentation).
     *
     * @return whether it was recorded
     */
    boolean record(Heartbeat h) {
        received.increment();
        long now = millis.getAsLong();
        FailoverDecider.Heard[] previous = new FailoverDecider.Heard[1];
        FailoverDecider.Heard recorded = heard.compute(h.nodeId(), (node, before) -> {
            previous[0] = before;
            return late(before, h) ? before
                    : new FailoverDecider.Heard(now, h.incarnation(), h.sequence(), h.reports());
        });
        if (recorded == previous[0]) {
            stale.increment();
            return false;
        }
        if (newlyFenced(previous[0], h)) {
            onNewlyFenced.run();
        }
        return true;
    }

    private static boolean late(FailoverDecider.Heard before, Heartbeat h) {
        return before != null && before.incarnation() == h.incarnation() && h.sequence() != Heartbeat.UNNUMBERED
                && h.sequence() <= before.sequence();
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

    /** Heartbeats received (as leader) since start, late ones included. */
    long received() {
        return received.sum();
    }

    /** Heartbeats dropped since start because a later one of the same node and incarnation was recorded first. */
    long stale() {
        return stale.sum();
    }
}
