package dev.felix.demos.slowconsumer;

import dev.felix.client.FelixClient;
import dev.felix.client.StreamRef;
import dev.felix.client.Subscription;
import dev.felix.demos.common.DemoBroker;
import dev.felix.demos.common.DropCounters;
import dev.felix.demos.common.PhaseClock;
import dev.felix.wire.ShardInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * One arm's run: a fresh broker, N subscribers (all subscribed before anything is published), the
 * publisher after a 300 ms head start, and the control loop that stalls the last subscriber for two
 * phases while sampling the publisher's rate and the healthy subscribers' latency.
 */
final class SlowConsumerRun {

    static final StreamRef STREAM = new StreamRef("t1", "default", "telemetry");
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);
    /**
     * After the publisher stops, how long the dashboards get to account for every published offset
     * (received or announced missed) before they are judged; what is still in flight then is reported.
     */
    static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(15);

    private final IsolationPolicy policy;
    private final SlowConsumerConfig config;
    private final SlowConsumerView view;

    SlowConsumerRun(IsolationPolicy policy, SlowConsumerConfig config, SlowConsumerView view) {
        this.policy = policy;
        this.config = config;
        this.view = view;
    }

    SlowConsumerOutcome run() throws Exception {
        List<FelixClient> clients = new ArrayList<>();
        try (DemoBroker broker = DemoBroker.start(policy.brokerSettings(config))) {
            try {
                FelixClient publisherClient = broker.connect(b -> policy.client(b, config));
                clients.add(publisherClient);
                policy.createStream(publisherClient, STREAM);
                PublishPhases phases = new PublishPhases();
                List<Dashboard> dashboards = new ArrayList<>();
                for (int i = 1; i <= config.subscribers(); i++) {
                    FelixClient c = broker.connect(b -> policy.client(b, config));
                    clients.add(c);
                    long start = tail(c);
                    Subscription s = c.subscribe(policy.subscribeOptions(STREAM, config));
                    dashboards.add(new Dashboard("dash-" + i, s, start, phases));
                }
                dashboards.forEach(Dashboard::start);
                TelemetryPublisher publisher = new TelemetryPublisher(publisherClient.publisher(STREAM),
                        config.targetRate(), config.payloadBytes());
                view.runStarted(policy, config);
                publisher.start();
                Measured m = walkPhases(dashboards, publisher, phases);

                publisher.stopAndJoin(STOP_TIMEOUT);
                long publishedEnd = tail(publisherClient);
                settle(dashboards, publishedEnd);
                for (Dashboard d : dashboards) {
                    d.stop(STOP_TIMEOUT);
                }
                List<DashboardOutcome> outcomes = new ArrayList<>();
                for (int i = 0; i < dashboards.size(); i++) {
                    Dashboard d = dashboards.get(i);
                    outcomes.add(new DashboardOutcome(d.name, d.received(), d.lost(), d.locallyDropped(),
                            i == dashboards.size() - 1, d.endedEarly(), d.coverage.against(publishedEnd)));
                }
                String metrics = broker.scrape();
                return new SlowConsumerOutcome(policy, config.targetRate(), m.rates.achieved(),
                        m.rates.during(SlowConsumerPhase.BASELINE), m.rates.during(SlowConsumerPhase.DEGRADED),
                        Percentiles.median(m.p99Baseline), Percentiles.median(m.p99Degraded),
                        healthyP99(dashboards, SlowConsumerPhase.BASELINE),
                        healthyP99(dashboards, SlowConsumerPhase.DEGRADED), m.stallWaitNanos / 1_000_000,
                        publisher.published(),
                        publisher.errors(), outcomes, DropCounters.drops(metrics), DropCounters.flowControl(metrics));
            } finally {
                for (FelixClient c : clients) {
                    c.close();
                }
            }
        }
    }

    /** Rate samples, per-tick healthy p99s by phase, and the publisher's waiting during the stall. */
    private record Measured(RateSamples rates, List<Long> p99Baseline, List<Long> p99Degraded, long stallWaitNanos) {
    }

    private Measured walkPhases(List<Dashboard> dashboards, TelemetryPublisher publisher, PublishPhases phases) {
        Dashboard victim = dashboards.get(dashboards.size() - 1);
        long p = config.phaseSecs();
        RateSamples rates = new RateSamples();
        List<Long> p99Baseline = new ArrayList<>();
        List<Long> p99Degraded = new ArrayList<>();
        PhaseClock clock = new PhaseClock();
        long lastPublished = 0;
        long stallWaitStart = 0;
        long stallWait = 0;
        SlowConsumerPhase previous = null;
        while (true) {
            clock.awaitTick();
            long secs = clock.elapsedSeconds();
            if (secs >= SlowConsumerPhase.UNITS * p) {
                break;
            }
            SlowConsumerPhase phase = SlowConsumerPhase.at(secs, p);
            if (phase != previous) {
                phases.started(phase, TelemetryPayload.now());
                if (phase == SlowConsumerPhase.DEGRADED) {
                    stallWaitStart = publisher.behindNanos();
                } else if (previous == SlowConsumerPhase.DEGRADED) {
                    stallWait = publisher.behindNanos() - stallWaitStart;
                }
            }
            victim.setStalled(phase == SlowConsumerPhase.DEGRADED);
            long published = publisher.published();
            if (previous != null) {
                // The interval since the last tick lay in the previous tick's phase.
                rates.add(previous, (published - lastPublished) * 2);
                for (Dashboard d : dashboards) {
                    long[] window = d.latencies.drain(); // drained every tick, so a phase's samples are its own
                    if (d != victim && window.length > 0) {
                        if (previous == SlowConsumerPhase.BASELINE) {
                            p99Baseline.add(Percentiles.micros(window, 0.99));
                        } else if (previous == SlowConsumerPhase.DEGRADED) {
                            p99Degraded.add(Percentiles.micros(window, 0.99));
                        }
                    }
                }
            }
            lastPublished = published;
            previous = phase;
            List<SlowConsumerTick.Row> rows = new ArrayList<>();
            for (Dashboard d : dashboards) {
                rows.add(new SlowConsumerTick.Row(d.name, d.stalled(), d.received(), d.lost(), d.coverage.gapNotices()));
            }
            view.tick(new SlowConsumerTick(phase, victim.name, rows, published, rates.last(), config.targetRate()));
        }
        return new Measured(rates, p99Baseline, p99Degraded, stallWait);
    }

    /**
     * Lets every dashboard (the stalled one draining again) account for every offset up to
     * {@code publishedEnd}, for at most {@link #SETTLE_TIMEOUT}: the verdict judges where each consumer
     * ended up, not a snapshot of what happened to be in flight.
     */
    private static void settle(List<Dashboard> dashboards, long publishedEnd) throws InterruptedException {
        long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
        for (Dashboard d : dashboards) {
            d.setStalled(false);
        }
        while (System.nanoTime() < deadline
                && dashboards.stream().anyMatch(d -> d.endedEarly() == null && d.coverage.position() < publishedEnd)) {
            java.util.concurrent.TimeUnit.MILLISECONDS.sleep(20); // bounded by the deadline; demo main code
        }
    }

    /** p99 in µs over every healthy subscriber's messages published in {@code phase}, or null if none. */
    private static Long healthyP99(List<Dashboard> dashboards, SlowConsumerPhase phase) {
        Histogram all = PublishPhases.newHistogram();
        for (int i = 0; i < dashboards.size() - 1; i++) {
            all.add(dashboards.get(i).latencyByPublishPhase[phase.ordinal()]);
        }
        return all.getTotalCount() == 0 ? null : all.getValueAtPercentile(99);
    }

    private static long tail(FelixClient c) {
        List<ShardInfo> shards = c.streams().describe(STREAM).shardInfo();
        return shards == null || shards.isEmpty() ? 0 : shards.get(0).nextOffset();
    }
}
