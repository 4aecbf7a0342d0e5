package dev.felix.client;

import dev.felix.transport.UdpSocketCounters;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

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
    /** Events an {@link EventViewHandler} read in place, without a copy or the receive queue (part of events). */
    final LongAdder eventsReadInPlace = new LongAdder();

    private final ReceiveBudget budget;
    /** The kernel's counters of the client's UDP socket (empty where they cannot be read). */
    private final Supplier<Optional<UdpSocketCounters.Reading>> udp;

    /** Counters alone (no receive budget, no socket), for tests of one checkpoint. */
    ClientMetrics() {
        this(ReceiveBudget.unlimited(), Optional::empty);
    }

    ClientMetrics(ReceiveBudget budget, Supplier<Optional<UdpSocketCounters.Reading>> udp) {
        this.budget = budget;
        this.udp = udp;
    }

    /**
     * Every counter (and the receive budget's gauges: limit, bytes held now, most held) by Prometheus name.
     *
     * <p>On Linux with the epoll transport it also holds what the kernel counts for the client's UDP socket:
     * {@code felix_client_udp_receive_drops_total}, datagrams dropped because the socket's receive buffer was full
     * (QUIC resends them, late: the client's event loop fell behind), and {@code felix_client_udp_receive_queue_bytes}
     * queued now. Clients of one {@link ClientResources} share a socket (up to 8 connections by default),
     * and these two are the socket's, not the one connection's.
     * They are read from {@code /proc} on each call; the other entries are plain counters.
     */
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
        m.put("felix_client_events_read_in_place_total", eventsReadInPlace.sum());
        udp.get().ifPresent(r -> {
            m.put("felix_client_udp_receive_drops_total", r.drops());
            m.put("felix_client_udp_receive_queue_bytes", r.queuedBytes());
        });
        return m;
    }
}
