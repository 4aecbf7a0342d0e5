package dev.felix.demos.divergence;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.demos.common.DropCounters;
import dev.felix.demos.common.PhaseClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

/**
 * One mode's run, start to end: a fresh broker (or, with {@code --nodes 3}, a fresh cluster of node processes:
 * {@link DivergenceTarget}), N consumers that each connect and subscribe (the publisher waits for all of them),
 * the publisher, and the control loop that walks the phases, stalls and releases the last {@code stalled}
 * consumers, and finally diffs every local copy against the authority.
 */
final class DivergenceRun {

    /** How long each consumer may take to connect and subscribe (upstream: 10 s). */
    private static final long READY_TIMEOUT_SECONDS = 10;
    /** Quiet time after the last phase before the final diff (upstream: 1.5 s). */
    private static final long SETTLE_MILLIS = 1500;
    /**
     * After settling, how long to wait at most for every consumer to have accounted for every published
     * offset; one that has not by then is reported as such (never waited for forever).
     */
    private static final long CONVERGE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long CONVERGE_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);

    private final DivergenceMode mode;
    private final DivergenceConfig config;
    private final DivergenceView view;

    DivergenceRun(DivergenceMode mode, DivergenceConfig config, DivergenceView view) {
        this.mode = mode;
        this.config = config;
        this.view = view;
    }

    DivergenceOutcome run() throws Exception {
        Keyspace keyspace = new Keyspace(config.keys());
        Authority authority = new Authority(config.keys());
        List<FelixClient> clients = new ArrayList<>();
        UnaryOperator<ClientConfig.Builder> settings = b -> mode.client(b, config);
        try (DivergenceTarget target = DivergenceTarget.open(mode, config)) {
            try {
                FelixClient admin = track(target.connectAdmin(settings), clients);
                ChangeSource source = mode.openSource(admin, config);
                FelixClient publisherClient = track(target.home(admin, settings), clients);
                List<Replica> consumers = subscribeAll(target, source, clients);
                consumers.forEach(Replica::start);
                DivergencePublisher publisher = new DivergencePublisher(new ChangeGenerator(keyspace, authority),
                        source.writer(publisherClient, config.payloadBytes()), config.rate(), config.payloadBytes());
                view.runStarted(mode, config);
                String where = target.describe();
                if (where != null) {
                    view.runsOn(where);
                }
                publisher.start();
                double stallRate = walkPhases(consumers, publisher, authority);

                publisher.stopAndJoin(STOP_TIMEOUT);
                TimeUnit.MILLISECONDS.sleep(SETTLE_MILLIS); // the demo's settle time, not a wait for a condition
                long publishedEnd = source.publishedEnd(publisherClient);
                awaitReached(consumers, publishedEnd);
                Authority.Snapshot truth = authority.snapshot();
                List<List<Integer>> wrong = new ArrayList<>();
                for (Replica c : consumers) {
                    wrong.add(c.wrongKeys(truth));
                }
                for (Replica c : consumers) {
                    c.stop(STOP_TIMEOUT);
                }
                List<ConsumerOutcome> outcomes = new ArrayList<>();
                for (int i = 0; i < consumers.size(); i++) {
                    outcomes.add(consumers.get(i).outcome(wrong.get(i), isVictim(i), publishedEnd));
                }
                String metrics = target.scrape();
                List<DropCounters.Series> counters = new ArrayList<>(DropCounters.drops(metrics));
                counters.addAll(DropCounters.flowControl(metrics));
                counters.addAll(DropCounters.watchEnds(metrics));
                return new DivergenceOutcome(mode, config.keys(), publisher.published(), publisher.errors(),
                        publishedEnd, config.rate(), stallRate, outcomes, counters);
            } finally {
                for (FelixClient c : clients) {
                    c.close();
                }
            }
        }
    }

    /** The last {@code stalled} consumers are the victims. */
    private boolean isVictim(int index) {
        return index >= config.consumers() - config.stalled();
    }

    /** Runs the phase schedule; returns the publisher's achieved rate during the stall. */
    private double walkPhases(List<Replica> consumers, DivergencePublisher publisher, Authority authority) {
        List<Replica> victims = consumers.subList(config.consumers() - config.stalled(), consumers.size());
        List<String> victimNames = victims.stream().map(Replica::name).toList();
        long p = config.phaseSecs();
        PhaseClock clock = new PhaseClock();
        DivergencePhase last = null;
        long stallStartNanos = 0;
        long stallStartPublished = 0;
        double stallRate = Double.NaN;
        while (true) {
            clock.awaitTick();
            long secs = clock.elapsedSeconds();
            if (secs >= DivergencePhase.UNITS * p) {
                break;
            }
            DivergencePhase phase = DivergencePhase.at(secs, p);
            for (Replica v : victims) {
                v.setStalled(phase == DivergencePhase.STALLED);
            }
            if (!phase.publishing()) {
                publisher.stop();
            }
            if (phase != last) {
                if (phase == DivergencePhase.STALLED) {
                    stallStartNanos = clock.elapsedNanos();
                    stallStartPublished = publisher.published();
                } else if (last == DivergencePhase.STALLED) {
                    double secondsStalled = (clock.elapsedNanos() - stallStartNanos) / 1e9;
                    stallRate = (publisher.published() - stallStartPublished) / secondsStalled;
                }
                last = phase;
            }
            Authority.Snapshot truth = authority.snapshot();
            List<DivergenceTick.Row> rows = new ArrayList<>();
            for (Replica c : consumers) {
                rows.add(c.row(truth));
            }
            view.tick(new DivergenceTick(phase, victimNames, rows, publisher.published(), config.keys()));
        }
        return stallRate;
    }

    /**
     * Waits, bounded, until every consumer has accounted for every offset below {@code end}: a mirror that
     * re-watched, or a subscriber still reading its backlog, is given time to converge before the diff.
     */
    private static void awaitReached(List<Replica> consumers, long end) {
        long deadline = System.nanoTime() + CONVERGE_TIMEOUT_NANOS;
        while (!consumers.stream().allMatch(c -> c.reached(end)) && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(CONVERGE_POLL_NANOS);
        }
    }

    /** Remembers {@code c} to close at the end of the run (once, however often it is handed back). */
    private static FelixClient track(FelixClient c, List<FelixClient> clients) {
        synchronized (clients) {
            if (!clients.contains(c)) {
                clients.add(c);
            }
        }
        return c;
    }

    /** Every consumer connects and subscribes concurrently; returns once all have (the readiness barrier). */
    private List<Replica> subscribeAll(DivergenceTarget target, ChangeSource source, List<FelixClient> clients)
            throws InterruptedException, ExecutionException {
        ExecutorService pool = Executors.newFixedThreadPool(config.consumers());
        try {
            List<CompletableFuture<Replica>> ready = new ArrayList<>();
            for (int i = 1; i <= config.consumers(); i++) {
                String name = "consumer-" + i;
                ready.add(CompletableFuture.supplyAsync(
                        () -> source.replica(name, track(target.connect(b -> mode.client(b, config)), clients),
                                config.keys()), pool));
            }
            List<Replica> consumers = new ArrayList<>();
            for (CompletableFuture<Replica> f : ready) {
                try {
                    consumers.add(f.get(READY_TIMEOUT_SECONDS, TimeUnit.SECONDS));
                } catch (TimeoutException e) {
                    throw new IllegalStateException("timed out waiting for consumers to subscribe");
                }
            }
            return consumers;
        } finally {
            pool.shutdown();
        }
    }
}
