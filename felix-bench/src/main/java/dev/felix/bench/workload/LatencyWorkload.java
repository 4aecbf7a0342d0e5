package dev.felix.bench.workload;

import dev.felix.bench.common.GcWatch;
import dev.felix.bench.common.Progress;
import dev.felix.bench.common.Stamp;
import dev.felix.bench.common.Stats;
import dev.felix.bench.system.Target;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Closed-loop latency: batch 1, one message in flight; the next publish starts once the broker confirmed
 * the previous one ({@link Target.Publisher#publishConfirmed}: Felix's per-message ack, NATS's flush
 * round trip, Redis's PUBLISH reply). Latency runs from the publisher's clock reading, embedded in the
 * message just before it is published, to receipt at <em>every</em> subscriber (all subscribers' samples
 * in one histogram). The first {@code warmup} messages of a run are not measured.
 */
public final class LatencyWorkload implements Workload {

    /**
     * @param warmup       unmeasured messages at the start of each run
     * @param count        measured messages per run
     * @param stallSeconds a run fails when no subscriber received anything for this long
     */
    public record Options(int warmup, int count, int stallSeconds) {
        public Options {
            if (warmup < 0 || count < 1 || stallSeconds < 1) {
                throw new IllegalArgumentException("warmup >= 0, count >= 1, stall >= 1 s");
            }
        }
    }

    public static final List<Metric> METRICS = List.of(
            new Metric("p50_us", "p50 µs", false),
            new Metric("p99_us", "p99 µs", false),
            new Metric("p999_us", "p999 µs", false),
            new Metric("max_us", "max µs", false),
            new Metric("confirm_p50_us", "confirm p50", false),
            new Metric("confirm_p99_us", "confirm p99", false),
            new Metric("cpu_s_per_m", "CPU s/M", false),
            new Metric("broker_cpu_s_per_m", "broker CPU s/M", false),
            new Metric("alloc_b_per_delivery", "alloc B/dlv", false),
            new Metric("broker_alloc_b_per_delivery", "broker alloc B/dlv", false),
            new Metric("gc_max_ms", "GC max ms", false));

    private final Options options;
    private final int jitWarmup;

    /** @param jitWarmup messages of the unmeasured warm-up run per system (0: none) */
    public LatencyWorkload(Options options, int jitWarmup) {
        this.options = options;
        this.jitWarmup = jitWarmup;
    }

    @Override
    public String name() {
        return "latency";
    }

    @Override
    public String method() {
        return "closed loop, batch 1, next publish after the broker's confirmation (Felix ack, NATS flush, "
                + "Redis PUBLISH reply); latency = embedded send time -> receipt, at every subscriber";
    }

    @Override
    public List<Metric> metrics() {
        return METRICS;
    }

    @Override
    public Map<String, Object> settings() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("warmup_messages_per_run", options.warmup());
        m.put("measured_messages_per_run", options.count());
        m.put("jit_warmup_messages", jitWarmup);
        m.put("header_bytes", Stamp.BYTES);
        return m;
    }

    @Override
    public Workload warmupVariant() {
        return jitWarmup <= 0 ? null
                : new LatencyWorkload(new Options(0, jitWarmup, options.stallSeconds()), 0);
    }

    @Override
    public RunResult run(Target target, Cell cell, String topic, Progress progress) throws Exception {
        int total = options.warmup() + options.count();
        List<Probe> probes = new ArrayList<>();
        List<AutoCloseable> subscriptions = new ArrayList<>();
        CpuWindow cpu = new CpuWindow(target);
        GcWatch gc = null; // watches the measured part only
        try {
            for (int i = 0; i < cell.fanout(); i++) {
                Probe p = new Probe(true, options.warmup(), null);
                probes.add(p);
                subscriptions.add(target.subscribe(topic, p));
            }
            Histogram confirm = new Histogram(Probe.MAX_NANOS, 3);
            try (Target.Publisher publisher = target.publisher(topic)) {
                for (int seq = 0; seq < total; seq++) {
                    if (seq == options.warmup()) {
                        gc = new GcWatch();
                        cpu.start();
                    }
                    long sent = System.nanoTime();
                    publisher.publishConfirmed(Stamp.message(cell.payload(), seq, sent));
                    long confirmed = System.nanoTime();
                    if (seq >= options.warmup()) {
                        confirm.recordValue(Math.min(Probe.MAX_NANOS, confirmed - sent));
                    }
                    progress.update((seq + 1L) * 100 / total);
                }
                boolean complete = Probe.awaitAll(probes, total, TimeUnit.SECONDS.toNanos(options.stallSeconds()));
                cpu.stop();
                return result(cell, probes, total, confirm, cpu, gc, complete);
            }
        } finally {
            if (gc != null) {
                gc.close();
            }
            for (AutoCloseable s : subscriptions) {
                s.close();
            }
        }
    }

    private RunResult result(Cell cell, List<Probe> probes, long total, Histogram confirm, CpuWindow cpu,
            GcWatch gc, boolean complete) {
        Histogram delivery = new Histogram(Probe.MAX_NANOS, 3);
        long delivered = 0;
        long errors = 0;
        List<String> accounts = new ArrayList<>();
        for (Probe p : probes) {
            delivery.add(p.latency);
            delivered += p.check.received();
            errors += p.check.errors(total);
            accounts.add(p.check.describe(total));
        }
        long measuredDeliveries = (long) options.count() * cell.fanout();
        Map<String, Double> v = new LinkedHashMap<>();
        v.put("p50_us", micros(delivery.getValueAtPercentile(50)));
        v.put("p99_us", micros(delivery.getValueAtPercentile(99)));
        v.put("p999_us", micros(delivery.getValueAtPercentile(99.9)));
        v.put("max_us", micros(delivery.getMaxValue()));
        v.put("confirm_p50_us", micros(confirm.getValueAtPercentile(50)));
        v.put("confirm_p99_us", micros(confirm.getValueAtPercentile(99)));
        v.put("cpu_s_per_m", Stats.cpuSecondsPerMillion(cpu.totalNanos(), measuredDeliveries));
        v.put("broker_cpu_s_per_m", Stats.cpuSecondsPerMillion(cpu.brokerNanos(), measuredDeliveries));
        v.put("alloc_b_per_delivery", Stats.bytesPerDelivery(cpu.allocatedBytes(), measuredDeliveries));
        v.put("broker_alloc_b_per_delivery", Stats.bytesPerDelivery(cpu.brokerAllocatedBytes(), measuredDeliveries));
        v.put("gc_max_ms", gc == null ? Double.NaN : (double) gc.maxMillis());
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("latency_samples", delivery.getTotalCount());
        detail.put("gc_collections", gc == null ? 0 : gc.count());
        detail.put("other_processes_cpu_share", cpu.foreignShare());
        detail.put("udp_receive_buffer_drops", cpu.udpDrops());
        String failure = complete ? null
                : "stalled: subscribers did not receive all " + total + " messages within "
                        + options.stallSeconds() + " s of the last delivery";
        return new RunResult(v, delivered, errors, summarize(accounts), failure, detail);
    }

    static String summarize(List<String> accounts) {
        return accounts.stream().allMatch("ok"::equals) ? "ok" : String.join("; ", accounts);
    }

    static double micros(long nanos) {
        return Math.round(nanos / 100.0) / 10.0;
    }
}
