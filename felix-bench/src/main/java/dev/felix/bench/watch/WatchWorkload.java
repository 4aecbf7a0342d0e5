package dev.felix.bench.watch;

import dev.felix.bench.common.CpuClock;
import dev.felix.bench.common.GcWatch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * One run of the watch workload against one fresh instance of a system:
 *
 * <ol>
 *   <li><b>preload</b>: every key written once;</li>
 *   <li><b>join</b>: N watchers start, each with its snapshot, and must hold every key;</li>
 *   <li><b>warm-up</b>, then <b>latency</b>: Zipf-chosen puts at a fixed rate, open loop; propagation
 *       latency (put issued → value applied at a mirror) for every write at every mirror;</li>
 *   <li><b>ramp</b>: the offered rate grows by a factor per step; a step keeps up when the achieved rate
 *       is within the bound of the offered one, the p99 propagation of its writes is under the bound, every
 *       put is acknowledged and every mirror holds every key's final value within the convergence bound
 *       after the step. The ramp stops at the first step that does not keep up;</li>
 *   <li><b>convergence check</b>: once everything is applied (or a minute has passed), the system's own
 *       final state is read back; it must equal the last put issued to every key (for a system that applies
 *       pipelined puts in order), and every mirror's copy must equal it. One wrong key fails the run.</li>
 * </ol>
 *
 * Runs on the calling thread, which is also the one writer thread.
 */
final class WatchWorkload {

    /** Longest wait for a backlog to drain (after the latency phase, a failed step, at the end). */
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** How long the writer waits for an in-flight slot before declaring the system stalled. */
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** The result of one run. {@code values} are the headline figures; {@code detail} everything else. */
    record Run(String system, int watchers, int index, boolean ok, String failure, Map<String, Double> values,
            Map<String, Object> detail) {
    }

    private final WatchBenchmark.Options o;

    WatchWorkload(WatchBenchmark.Options options) {
        this.o = options;
    }

    static String keyName(int key, int keys) {
        int width = Math.max(4, Integer.toString(keys - 1).length());
        return WatchBenchmark.PREFIX + "k" + String.format("%0" + width + "d", key);
    }

    Run run(WatchSystem system, int watchers, int index, Consumer<String> progress) {
        Path work = null;
        Map<String, Object> detail = new LinkedHashMap<>();
        try {
            work = Files.createTempDirectory("felix-watch-" + system.name() + "-");
            WatchTarget target = system.start(work);
            // If this JVM is stopped mid-run, still stop the broker process it started.
            Thread hook = new Thread(target::close, "felix-watch-target-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                detail.put("system", target.describe());
                return measure(target, system.name(), watchers, index, detail, progress);
            } finally {
                target.close();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook runs anyway; close() is idempotent
                }
            }
        } catch (Exception e) {
            String why = e.getClass().getSimpleName() + ": " + e.getMessage();
            progress.accept("    failed: " + why);
            return new Run(system.name(), watchers, index, false, why, Map.of(), detail);
        } finally {
            if (work != null) {
                deleteTree(work);
            }
        }
    }

    private Run measure(WatchTarget target, String name, int watchers, int index, Map<String, Object> detail,
            Consumer<String> progress) throws Exception {
        int keys = o.keys();
        String[] keyNames = new String[keys];
        for (int k = 0; k < keys; k++) {
            keyNames[k] = keyName(k, keys);
        }
        WriteTracker tracker = new WriteTracker(keys, watchers, o.valueBytes());
        Driver driver = new Driver(target, tracker, keyNames, o.inflight(), new Zipf(keys, o.zipfS(), o.seed() + index));
        Map<String, Double> values = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();

        // 1. Preload every key once.
        progress.accept("preloading " + keys + " keys");
        tracker.beginPhase("preload");
        for (int k = 0; k < keys; k++) {
            driver.issue(k);
        }
        tracker.endPhase();
        if (!driver.awaitAcks(System.nanoTime() + DRAIN_NANOS)) {
            return failed(name, watchers, index, "preload not acknowledged: " + driver.failureText(), values, detail);
        }

        // 2. Watchers join, each with a snapshot.
        progress.accept(watchers + " watcher(s) joining");
        AtomicLong foreign = new AtomicLong();
        List<WatchTarget.Watcher> mirrors = new ArrayList<>();
        double[] joinMillis = new double[watchers];
        for (int m = 0; m < watchers; m++) {
            int mirror = m;
            long t0 = System.nanoTime();
            mirrors.add(target.startWatcher(WatchBenchmark.PREFIX, (key, value) -> {
                if (!tracker.apply(mirror, value, System.nanoTime())) {
                    foreign.incrementAndGet();
                }
            }));
            joinMillis[m] = (System.nanoTime() - t0) / 1e6;
        }
        try {
            Arrays.sort(joinMillis);
            detail.put("join_ms_median", joinMillis[watchers / 2]);
            detail.put("join_ms_max", joinMillis[watchers - 1]);
            if (!tracker.awaitApplied(System.nanoTime() + DRAIN_NANOS, driver::failed)) {
                return failed(name, watchers, index, "watchers did not hold every preloaded key after joining "
                        + "(" + tracker.outstanding() + " deliveries missing)", values, detail);
            }

            // 3. Warm-up and the latency phase at a fixed rate.
            int latencyRate = o.latencyRate(watchers);
            progress.accept("warm-up, then the latency phase at " + latencyRate + " updates/s");
            driver.runAt(latencyRate, o.warmup().toNanos(), "warmup");
            tracker.awaitApplied(System.nanoTime() + DRAIN_NANOS, driver::failed);
            long jvm0 = CpuClock.process();
            long broker0 = target.brokerCpuNanos();
            long busy0 = CpuClock.machineBusy();
            long wall0 = System.nanoTime();
            Histogram acks = new Histogram(WriteTracker.MAX_MICROS, 3);
            driver.ackLatency = acks;
            GcWatch gc = new GcWatch();
            Step lat = driver.runAt(latencyRate, o.latency().toNanos(), "latency");
            boolean latConverged = tracker.awaitApplied(System.nanoTime() + DRAIN_NANOS, driver::failed)
                    && driver.awaitAcks(System.nanoTime() + DRAIN_NANOS);
            driver.ackLatency = null;
            gc.close();
            detail.put("latency_phase_gc_pauses", gc.count());
            detail.put("latency_phase_gc_max_ms", gc.maxMillis());
            long wall1 = System.nanoTime();
            long busy1 = CpuClock.machineBusy();
            long jvm1 = CpuClock.process();
            long broker1 = target.brokerCpuNanos();
            if (!latConverged) {
                return failed(name, watchers, index, "latency phase did not converge within 60 s ("
                        + tracker.outstanding() + " deliveries missing" + driver.failureSuffix() + ")", values, detail);
            }
            Histogram every = lat.phase.everyMirror();
            Histogram all = lat.phase.allMirrors();
            values.put("p50_us", (double) every.getValueAtPercentile(50));
            values.put("p99_us", (double) every.getValueAtPercentile(99));
            values.put("p999_us", (double) every.getValueAtPercentile(99.9));
            values.put("max_us", (double) every.getMaxValue());
            values.put("all_p50_us", (double) all.getValueAtPercentile(50));
            values.put("all_p99_us", (double) all.getValueAtPercentile(99));
            values.put("all_p999_us", (double) all.getValueAtPercentile(99.9));
            long applied = (long) lat.writes * watchers;
            long total = jvm1 - jvm0 + (target.brokerInThisJvm() ? 0 : Math.max(0, broker1 - broker0));
            values.put("cpu_s_per_m", jvm0 < 0 ? Double.NaN : (total / 1e9) / (applied / 1e6));
            values.put("broker_cpu_s_per_m", broker0 < 0 ? Double.NaN : ((broker1 - broker0) / 1e9) / (applied / 1e6));
            synchronized (acks) {
                detail.put("put_ack_p50_us", acks.getValueAtPercentile(50));
                detail.put("put_ack_p99_us", acks.getValueAtPercentile(99));
            }
            if (busy0 >= 0 && busy1 >= 0 && jvm0 >= 0) {
                // Other processes' CPU while this phase ran: the machine is shared, so say how much.
                double others = Math.max(0, (busy1 - busy0) - total) / 1e9;
                detail.put("latency_phase_other_cpu_cores", others / ((wall1 - wall0) / 1e9));
                values.put("other_cores", others / ((wall1 - wall0) / 1e9));
            }
            detail.put("latency_rate_per_s", latencyRate);
            detail.put("latency_writes", lat.writes);
            detail.put("latency_samples", every.getTotalCount());
            detail.put("latency_achieved_per_s", lat.achieved);
            progress.accept(String.format("    latency at %,d/s: p50 %s  p99 %s  p999 %s  (to all mirrors p99 %s; put ack "
                    + "p50 %s p99 %s; other processes %.1f cores; GC max %d ms)",
                    latencyRate, WatchBenchmark.micros(values.get("p50_us")), WatchBenchmark.micros(values.get("p99_us")),
                    WatchBenchmark.micros(values.get("p999_us")), WatchBenchmark.micros(values.get("all_p99_us")),
                    WatchBenchmark.micros(((Number) detail.get("put_ack_p50_us")).doubleValue()),
                    WatchBenchmark.micros(((Number) detail.get("put_ack_p99_us")).doubleValue()),
                    ((Number) detail.getOrDefault("latency_phase_other_cpu_cores", Double.NaN)).doubleValue(),
                    gc.maxMillis()));

            // 4. Ramp: up by the factor while steps keep up; if the very first does not, down until one does.
            List<Map<String, Object>> steps = new ArrayList<>();
            double lastGood = 0;
            double lastGoodAchieved = 0;
            double rate = o.rampStart(watchers);
            boolean down = false;
            for (int s = 0; s < o.rampMaxSteps() && rate >= o.rampMin(); s++) {
                Step step = driver.runAt(rate, o.rampStep().toNanos(), "ramp-" + (s + 1));
                long stepEnd = System.nanoTime();
                long deadline = stepEnd + o.convergeWithin().toNanos();
                boolean converged = tracker.awaitApplied(deadline, driver::failed)
                        && driver.awaitAcks(deadline);
                double convergedMs = (System.nanoTime() - stepEnd) / 1e6;
                Histogram h = step.phase.everyMirror();
                double p99 = h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(99);
                boolean rateOk = step.achieved >= o.keepUpFraction() * rate;
                boolean latencyOk = p99 < o.p99Bound().toNanos() / 1e3;
                boolean ok = converged && rateOk && latencyOk && !driver.failed();
                Map<String, Object> st = new LinkedHashMap<>();
                st.put("offered_per_s", rate);
                st.put("achieved_per_s", step.achieved);
                st.put("p99_us", p99);
                st.put("converged", converged);
                st.put("converged_ms", converged ? convergedMs : Double.NaN);
                st.put("keeps_up", ok);
                steps.add(st);
                progress.accept(String.format("    ramp %,9.0f/s: achieved %,9.0f/s  p99 %-9s %s", rate, step.achieved,
                        WatchBenchmark.micros(p99), ok ? "ok"
                                : "no (" + (!rateOk ? "achieved < " + Math.round(o.keepUpFraction() * 100) + "% " : "")
                                + (!latencyOk ? "p99 over " + o.p99Bound().toMillis() + " ms " : "")
                                + (!converged ? "not converged " + o.convergeWithin().toMillis() + " ms after " : "")
                                + driver.failureSuffix() + ")"));
                if (driver.failed()) {
                    break;
                }
                if (ok) {
                    lastGood = rate;
                    lastGoodAchieved = step.achieved;
                    if (down) {
                        break;
                    }
                    rate *= o.rampFactor();
                } else if (lastGood > 0) {
                    break;
                } else {
                    // Not even the first step: let the backlog drain, then try lower.
                    down = true;
                    tracker.awaitApplied(System.nanoTime() + DRAIN_NANOS, driver::failed);
                    driver.awaitAcks(System.nanoTime() + DRAIN_NANOS);
                    rate /= o.rampFactor();
                }
            }
            detail.put("ramp", steps);
            values.put("updates_per_s", lastGood);
            values.put("updates_x_watchers_per_s", lastGood * watchers);
            detail.put("sustained_achieved_per_s", lastGoodAchieved);

            // 5. Convergence check.
            boolean drained = driver.awaitAcks(System.nanoTime() + DRAIN_NANOS)
                    && tracker.awaitApplied(System.nanoTime() + DRAIN_NANOS, driver::failed);
            if (driver.failed()) {
                failures.add("puts failed: " + driver.failureText());
            }
            if (!drained) {
                failures.add(tracker.outstanding() + " deliveries still missing 60 s after the last put");
            }
            // The system's own final state is the truth the mirrors must equal. For a system that applies
            // puts in issue order it must also equal the last put issued to every key.
            List<String> keyList = Arrays.asList(keyNames);
            Map<String, byte[]> truth = target.read(keyList);
            long reordered = 0;
            List<String> examples = new ArrayList<>();
            for (int k = 0; k < keys; k++) {
                byte[] last = tracker.expectedValue(k);
                byte[] held = truth.get(keyNames[k]);
                if (!Arrays.equals(last, held)) {
                    reordered++;
                    if (examples.size() < 5) {
                        examples.add(keyNames[k] + ": last put #" + WriteTracker.index(last) + ", system holds "
                                + (held == null ? "nothing" : "#" + WriteTracker.index(held)));
                    }
                }
            }
            if (!examples.isEmpty()) {
                detail.put("final_state_differences", examples);
            }
            detail.put("final_state_differs_from_last_put", reordered);
            if (reordered > 0 && target.orderedPuts()) {
                failures.add("the system's final state differs from the last put for " + reordered + " keys");
            }
            long wrongKeys = 0;
            int wrongMirrors = 0;
            Map<String, Long> counters = new LinkedHashMap<>();
            for (int m = 0; m < watchers; m++) {
                WatchTarget.Watcher w = mirrors.get(m);
                Map<String, byte[]> state = w.state();
                long wrong = 0;
                for (int k = 0; k < keys; k++) {
                    if (!Arrays.equals(truth.get(keyNames[k]), state.get(keyNames[k]))) {
                        wrong++;
                    }
                }
                wrong += state.keySet().stream().filter(key -> Arrays.binarySearch(keyNames, key) < 0).count();
                if (wrong > 0) {
                    wrongKeys += wrong;
                    wrongMirrors++;
                }
                if (w.failure() != null) {
                    failures.add("watcher " + m + ": " + w.failure());
                }
                w.counters().forEach((k, v) -> counters.merge(k, v, Long::sum));
            }
            detail.put("watcher_counters", counters);
            detail.put("writes", tracker.writes());
            detail.put("samples", tracker.samples());
            detail.put("expected_samples", (long) tracker.writes() * watchers);
            detail.put("foreign_values", foreign.get());
            detail.put("wrong_keys", wrongKeys);
            detail.put("wrong_mirrors", wrongMirrors);
            if (wrongKeys > 0) {
                failures.add(0, "DIVERGED: " + wrongKeys + " wrong keys at " + wrongMirrors + " of " + watchers
                        + " mirrors");
            }
            if (foreign.get() > 0) {
                failures.add(foreign.get() + " values applied that were never written");
            }
            if (drained && tracker.samples() != (long) tracker.writes() * watchers) {
                failures.add("samples " + tracker.samples() + " != writes x mirrors " + (long) tracker.writes() * watchers);
            }
            progress.accept(String.format("    sustained %,.0f updates/s = %,.0f updates x watchers/s; convergence: %s",
                    lastGood, lastGood * watchers, failures.isEmpty() ? "every mirror equals the last writes"
                            : String.join("; ", failures)));
            return new Run(name, watchers, index, failures.isEmpty(),
                    failures.isEmpty() ? null : String.join("; ", failures), values, detail);
        } finally {
            for (WatchTarget.Watcher w : mirrors) {
                try {
                    w.close();
                } catch (RuntimeException ignored) {
                    // the target closes its connections anyway
                }
            }
        }
    }

    private static Run failed(String name, int watchers, int index, String why, Map<String, Double> values,
            Map<String, Object> detail) {
        return new Run(name, watchers, index, false, why, values, detail);
    }

    // ------------------------------------------------------------------ the writer

    /** What one fixed-rate stretch did. */
    private record Step(WriteTracker.Phase phase, int writes, double achieved) {
    }

    /** The one writer: open-loop puts at a schedule, at most {@code inflight} unacknowledged. */
    private static final class Driver {
        private final WatchTarget target;
        private final WriteTracker tracker;
        private final String[] keyNames;
        private final Zipf zipf;
        private final Semaphore permits;
        private final int inflight;
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        /** When set, every acknowledgement's latency (put issued → acknowledged) in µs; guarded by itself. */
        volatile Histogram ackLatency;

        Driver(WatchTarget target, WriteTracker tracker, String[] keyNames, int inflight, Zipf zipf) {
            this.target = target;
            this.tracker = tracker;
            this.keyNames = keyNames;
            this.zipf = zipf;
            this.inflight = inflight;
            this.permits = new Semaphore(inflight);
        }

        boolean failed() {
            return failure.get() != null;
        }

        String failureText() {
            Throwable t = failure.get();
            return t == null ? "none" : String.valueOf(t);
        }

        String failureSuffix() {
            return failed() ? "; " + failureText() : "";
        }

        /** Puts at {@code rate}/s for {@code nanos}, in a phase of that name. */
        Step runAt(double rate, long nanos, String phaseName) throws InterruptedException {
            WriteTracker.Phase phase = tracker.beginPhase(phaseName);
            long start = System.nanoTime();
            long end = start + nanos;
            double period = 1e9 / rate;
            long i = 0;
            while (!failed()) {
                long due = start + (long) (i * period);
                if (due >= end) {
                    break;
                }
                long now = System.nanoTime();
                if (now >= end) {
                    break; // behind schedule at the end: what was not issued counts against the achieved rate
                }
                if (now < due) {
                    LockSupport.parkNanos(due - now);
                    continue;
                }
                issue(zipf.next());
                i++;
            }
            tracker.endPhase();
            double seconds = Math.max(nanos, System.nanoTime() - start) / 1e9;
            int writes = phase.writes(tracker);
            return new Step(phase, writes, writes / seconds);
        }

        /** Issues one put of {@code key} (its next value), waiting for an in-flight slot. */
        void issue(int key) throws InterruptedException {
            if (!permits.tryAcquire(STALL_NANOS, TimeUnit.NANOSECONDS)) {
                failure.compareAndSet(null, new IllegalStateException("no put acknowledged for "
                        + TimeUnit.NANOSECONDS.toSeconds(STALL_NANOS) + " s with " + inflight + " in flight"));
                return;
            }
            int g = tracker.record(key, System.nanoTime());
            byte[] value = tracker.value(g, key);
            CompletableFuture<?> f;
            try {
                f = target.put(keyNames[key], value);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            f.whenComplete((r, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                }
                Histogram acks = ackLatency;
                if (acks != null) {
                    long micros = (System.nanoTime() - WriteTracker.issueNanos(value)) / 1_000;
                    synchronized (acks) {
                        acks.recordValue(Math.max(1, Math.min(WriteTracker.MAX_MICROS, micros)));
                    }
                }
                permits.release();
            });
        }

        /** Waits until every put issued so far is acknowledged (or failed), or the deadline. */
        boolean awaitAcks(long deadlineNanos) {
            while (permits.availablePermits() < inflight) {
                if (System.nanoTime() > deadlineNanos) {
                    return false;
                }
                LockSupport.parkNanos(200_000);
            }
            return !failed();
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temp directory left behind is harmless
        }
    }
}
