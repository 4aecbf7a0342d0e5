package dev.felix.client;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of one {@link FelixClient}, for the client-side checkpoints. The SDK depends on no metrics
 * library: {@link #snapshot()} gives each counter under its Prometheus name so an application can export
 * them with whatever it uses. Thread-safe.
 *
 * <p><b>Threads and buffers.</b> Thread-safe: counters are bumped from event loops and application threads and
 * read from any thread. Touches no {@code ByteBuf}s.
 */
public final class ClientMetrics {

    /** Times a publish had to wait for {@code client_publish_queue} room (or was refused under drop_new). */
    final LongAdder publishQueueBlocked = new LongAdder();
    /** Publishes refused because the {@code client_publish_queue} was full under drop_new. */
    final LongAdder publishQueueDropped = new LongAdder();
    /** Events dropped by {@code client_receive_queue} under drop_new / drop_old (each reported as a gap). */
    final LongAdder receiveQueueDropped = new LongAdder();
    /** Times a subscription stopped reading because its {@code client_receive_queue} was full (block). */
    final LongAdder receiveQueueBlocked = new LongAdder();
    /** Gap notices handed to the application. */
    final LongAdder gaps = new LongAdder();
    /** Events re-read to heal gaps. */
    final LongAdder healedEvents = new LongAdder();
    /** Events received. */
    final LongAdder events = new LongAdder();

    private final ReceiveBudget budget;

    /** Counters alone (no receive budget), for tests of one checkpoint. */
    ClientMetrics() {
        this(ReceiveBudget.unlimited());
    }

    ClientMetrics(ReceiveBudget budget) {
        this.budget = budget;
    }

    /** Every counter (and the receive budget's gauges: limit, bytes held now, most held) by Prometheus name. */
    public Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("felix_client_blocked_total{checkpoint=\"client_publish_queue\"}", publishQueueBlocked.sum());
        m.put("felix_client_dropped_events_total{checkpoint=\"client_publish_queue\"}", publishQueueDropped.sum());
        m.put("felix_client_blocked_total{checkpoint=\"client_receive_queue\"}", receiveQueueBlocked.sum());
        m.put("felix_client_dropped_events_total{checkpoint=\"client_receive_queue\"}", receiveQueueDropped.sum());
        m.put("felix_client_blocked_total{checkpoint=\"client_receive_budget\"}", budget.exhausted.sum());
        m.put("felix_client_receive_budget_bytes", budget.limit());
        m.put("felix_client_receive_budget_used_bytes", budget.used());
        m.put("felix_client_receive_budget_peak_bytes", budget.peak());
        m.put("felix_client_gap_notices_total", gaps.sum());
        m.put("felix_client_healed_events_total", healedEvents.sum());
        m.put("felix_client_received_events_total", events.sum());
        return m;
    }
}
