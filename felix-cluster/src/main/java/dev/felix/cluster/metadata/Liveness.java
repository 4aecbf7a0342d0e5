package dev.felix.cluster.metadata;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What this node heard from every node's heartbeats while it was the Raft leader: when, at which incarnation,
 * and the latest replica reports. In memory only; a new leader starts from nothing and grants grace instead
 * ({@link FailoverDecider}).
 *
 * <p><b>Threads.</b> Thread-safe: Ratis query threads record, the decider thread reads a copy.
 */
final class Liveness {

    private final Clock clock;
    private final ConcurrentHashMap<String, FailoverDecider.Heard> heard = new ConcurrentHashMap<>();
    private final LongAdder received = new LongAdder();

    Liveness(Clock clock) {
        this.clock = clock;
    }

    void record(Heartbeat h) {
        heard.put(h.nodeId(), new FailoverDecider.Heard(clock.millis(), h.incarnation(), h.reports()));
        received.increment();
    }

    Map<String, FailoverDecider.Heard> snapshot() {
        return Map.copyOf(heard);
    }

    long nowMillis() {
        return clock.millis();
    }

    /** Heartbeats received (as leader) since start. */
    long received() {
        return received.sum();
    }
}
