package dev.felix.cluster.relay;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The {@code felix_relay_*} meters of one node (Prometheus names; Micrometer's use dots), documented in
 * {@code docs/operations.md} (Relay metrics):
 * <table>
 *   <caption>relay meters</caption>
 *   <tr><td>{@code felix_relay_delivered_total}</td><td>counter</td><td>events handed to local subscriptions
 *   (one per event per subscription)</td></tr>
 *   <tr><td>{@code felix_relay_dropped_total{reason}}</td><td>counter</td><td>events the relay lost, once per
 *   batch: {@code queue_full}, {@code stale} (deadline), {@code ephemeral} (a {@code no_replay} shard's)</td></tr>
 *   <tr><td>{@code felix_relay_fenced_total}</td><td>counter</td><td>subscriptions fenced after a loss</td></tr>
 *   <tr><td>{@code felix_relay_gaps_total}</td><td>counter</td><td>{@code relay_lag} gap notices sent</td></tr>
 *   <tr><td>{@code felix_relay_paced_closes_total}</td><td>counter</td><td>subscriptions closed with
 *   {@code resync} by the paced closer</td></tr>
 *   <tr><td>{@code felix_relay_lag_seconds}</td><td>timer</td><td>from this node receiving a batch to its
 *   delivery to every local subscription</td></tr>
 *   <tr><td>{@code felix_relay_dispatcher_lag_seconds}</td><td>gauge</td><td>how long the oldest batch not yet
 *   routed has waited</td></tr>
 *   <tr><td>{@code felix_relay_worker_queue_batches{worker}}</td><td>gauge</td><td>batches queued on each
 *   worker</td></tr>
 * </table>
 * <b>Threads.</b> Any thread.
 */
final class RelayMetrics {

    /** Why the relay lost a batch; the tag value is stable. */
    enum Drop {
        QUEUE_FULL, STALE, EPHEMERAL;

        final String tag = name().toLowerCase(Locale.ROOT);
    }

    private final Counter delivered;
    private final Map<Drop, Counter> dropped = new EnumMap<>(Drop.class);
    private final Counter fenced;
    private final Counter gaps;
    private final Counter pacedCloses;
    private final Timer lag;

    RelayMetrics(MeterRegistry registry) {
        delivered = Counter.builder("felix.relay.delivered")
                .description("events handed to local subscriptions by the relay").register(registry);
        for (Drop d : Drop.values()) {
            dropped.put(d, Counter.builder("felix.relay.dropped").tag("reason", d.tag)
                    .description("events the relay lost, once per batch").register(registry));
        }
        fenced = Counter.builder("felix.relay.fenced").description("subscriptions fenced after a relay loss")
                .register(registry);
        gaps = Counter.builder("felix.relay.gaps").description("relay_lag gap notices sent").register(registry);
        pacedCloses = Counter.builder("felix.relay.paced.closes")
                .description("subscriptions closed with resync by the paced closer").register(registry);
        lag = Timer.builder("felix.relay.lag")
                .description("from this node receiving a batch to its delivery to every local subscription")
                .register(registry);
    }

    /** Registers the gauges that read the relay's live state. */
    void bind(MeterRegistry registry, Dispatcher dispatcher, RelayWorker[] workers) {
        Gauge.builder("felix.relay.dispatcher.lag", dispatcher, d -> d.lagNanos() / 1e9).baseUnit("seconds")
                .description("how long the oldest batch not yet routed has waited").register(registry);
        for (RelayWorker w : workers) {
            Gauge.builder("felix.relay.worker.queue", w, RelayWorker::depth).baseUnit("batches")
                    .tag("worker", Integer.toString(w.index())).description("batches queued on a relay worker")
                    .register(registry);
        }
    }

    void delivered(int events) {
        delivered.increment(events);
    }

    void dropped(Drop reason, long events) {
        dropped.get(reason).increment(events);
    }

    void fenced() {
        fenced.increment();
    }

    void gap() {
        gaps.increment();
    }

    void pacedCloses(int n) {
        if (n > 0) {
            pacedCloses.increment(n);
        }
    }

    void lag(long nanos) {
        lag.record(Math.max(0, nanos), TimeUnit.NANOSECONDS);
    }
}
