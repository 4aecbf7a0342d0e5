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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Lossless sustained throughput: one publisher sends batches of {@code batch} messages as fast as the
 * system lets it, without waiting for confirmations; every subscriber must receive every message, in
 * order. Runs are sized by bytes per subscriber (well past every buffer, so buffering cannot pass for
 * throughput) with a time cap; the first tenth is warm-up, and the timed window runs from the moment the
 * first subscriber finished the warm-up to the moment the last subscriber received the last message.
 *
 * <p>Systems without backpressure ({@link Target#backpressure()} false) would drop or disconnect a lagging
 * subscriber, so for them the publisher keeps at most {@code windowBytes} published-but-not-yet-received
 * (by the slowest subscriber) in flight: the same bound applies to every such system.
 */
public final class ThroughputWorkload implements Workload {

    /** Bytes in flight that make a run long enough to be past Felix's largest buffer (2 x 64 MiB QUIC window). */
    public static final long VALID_BYTES_PER_SUBSCRIBER = 128L << 20;
    /** Or this long a timed window. */
    public static final double VALID_SECONDS = 30;

    /**
     * @param batch              messages per publish call
     * @param mibPerSubscriber   run size: MiB (payload + header) delivered to each subscriber
     * @param maxSeconds         time cap: publishing stops after this long (past the warm-up) even if the
     *                           size was not reached
     * @param windowBytes        in-flight bound for systems without backpressure
     * @param stallSeconds       a run fails when no subscriber received anything for this long
     * @param warmupSeconds      unmeasured warm-up runs on the first cell last at least this long per system (0: one
     *                           run); every later cell gets one
     */
    public record Options(int batch, long mibPerSubscriber, int maxSeconds, long windowBytes, int stallSeconds,
            int warmupSeconds) {
        public Options {
            if (batch < 1 || mibPerSubscriber < 1 || maxSeconds < 1 || windowBytes < 1 || stallSeconds < 1) {
                throw new IllegalArgumentException("every throughput option must be positive");
            }
            if (warmupSeconds < 0) {
                throw new IllegalArgumentException("warm-up seconds must not be negative");
            }
        }
    }

    public static final List<Metric> METRICS = List.of(
            new Metric("msgs_per_s", "deliveries/s", true),
            new Metric("mb_per_s", "MB/s", true),
            new Metric("per_sub_mb_per_s", "MB/s per sub", true),
            new Metric("cpu_s_per_m", "CPU s/M", false),
            new Metric("broker_cpu_s_per_m", "broker CPU s/M", false),
            new Metric("alloc_b_per_delivery", "alloc B/dlv", false),
            new Metric("broker_alloc_b_per_delivery", "broker alloc B/dlv", false),
            new Metric("gc_max_ms", "GC max ms", false));

    private final Options options;
    private final boolean warmupOnly;

    public ThroughputWorkload(Options options) {
        this(options, false);
    }

    private ThroughputWorkload(Options options, boolean warmupOnly) {
        this.options = options;
        this.warmupOnly = warmupOnly;
    }

    @Override
    public String name() {
        return "throughput";
    }

    @Override
    public String method() {
        return "lossless, batch " + options.batch() + ", unconfirmed publishes (durable systems: acknowledged, "
                + "at most 256 messages unacknowledged), every delivery sequence-checked at every subscriber; timed "
                + "from the end of the warm-up tenth to the last delivery";
    }

    @Override
    public List<Metric> metrics() {
        return METRICS;
    }

    @Override
    public Map<String, Object> settings() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("batch", options.batch());
        m.put("mib_per_subscriber", options.mibPerSubscriber());
        m.put("max_seconds", options.maxSeconds());
        m.put("window_bytes_without_backpressure", options.windowBytes());
        m.put("header_bytes", Stamp.BYTES);
        m.put("warmup_seconds_first_cell", options.warmupSeconds());
        return m;
    }

    @Override
    public Workload warmupVariant() {
        // The size of a measured run, at most 5 s of it; repeated on the first cell until warmupSeconds have passed,
        // once on every later cell.
        return warmupOnly ? null : new ThroughputWorkload(new Options(options.batch(), options.mibPerSubscriber(),
                Math.min(5, options.maxSeconds()), options.windowBytes(), options.stallSeconds(), 0), true);
    }

    /**
     * Measured on 2 cores (docs/benchmarks.md, "Warm-up by time"): after one 16 MiB warm-up run, the first two
     * measured runs at 1 KiB fanout 10 were up to half as fast as the later ones, whichever payload path the broker
     * took; the JIT compiles under this load for 20-30 s.
     */
    @Override
    public double warmupSeconds() {
        return options.warmupSeconds();
    }

    @Override
    public boolean warmupEachCell() {
        return true;
    }

    /**
     * Messages per subscriber for a cell: at least the byte size (rounded up, so a run sized at the validity
     * threshold is not flagged for a few bytes short of it), in whole batches, at least 10 batches.
     */
    public long messagesFor(Cell cell) {
        long size = Stamp.BYTES + cell.payload();
        long n = ((options.mibPerSubscriber() << 20) + size - 1) / size;
        long batches = Math.max(10, (n + options.batch() - 1) / options.batch());
        return batches * options.batch();
    }

    @Override
    public RunResult run(Target target, Cell cell, String topic, Progress progress) throws Exception {
        long planned = messagesFor(cell);
        long warmup = Math.max(options.batch(), planned / 10 / options.batch() * options.batch());
        int size = Stamp.BYTES + cell.payload();
        long window = target.backpressure() ? Long.MAX_VALUE
                : Math.max(2L * options.batch(), options.windowBytes() / size);
        CpuWindow cpu = new CpuWindow(target);
        AtomicBoolean warm = new AtomicBoolean();
        GcWatch[] gc = new GcWatch[1];
        List<Probe> probes = new ArrayList<>();
        List<AutoCloseable> subscriptions = new ArrayList<>();
        long stall = TimeUnit.SECONDS.toNanos(options.stallSeconds());
        try {
            for (int i = 0; i < cell.fanout(); i++) {
                // The first subscriber through the warm-up starts the CPU and GC window.
                Probe p = new Probe(false, warmup, () -> {
                    if (warm.compareAndSet(false, true)) {
                        gc[0] = new GcWatch();
                        cpu.start();
                    }
                });
                probes.add(p);
                subscriptions.add(target.subscribe(topic, p));
            }
            long published = 0;
            String failure = null;
            try (Target.Publisher publisher = target.publisher(topic)) {
                long deadline = Long.MAX_VALUE;
                while (published < planned) {
                    if (published >= warmup && deadline == Long.MAX_VALUE) {
                        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(options.maxSeconds());
                    }
                    if (System.nanoTime() > deadline) {
                        break; // time cap: the run is time-based from here
                    }
                    int n = (int) Math.min(options.batch(), planned - published);
                    if (!awaitWindow(probes, published + n, window, stall)) {
                        failure = "stalled: the slowest subscriber received nothing for " + options.stallSeconds() + " s";
                        break;
                    }
                    List<byte[]> batch = new ArrayList<>(n);
                    long now = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        batch.add(Stamp.message(cell.payload(), published + i, now));
                    }
                    publisher.publishBatch(batch);
                    published += n;
                    progress.update(published * 100 / planned);
                }
                publisher.flush();
                progress.update(100);
                if (failure == null && !Probe.awaitAll(probes, published, stall)) {
                    failure = "stalled: subscribers did not receive all " + published + " messages";
                }
                cpu.stop();
            }
            return result(cell, probes, warmup, published, size, cpu, gc[0], failure);
        } finally {
            if (gc[0] != null) {
                gc[0].close();
            }
            for (AutoCloseable s : subscriptions) {
                s.close();
            }
        }
    }

    /** Waits until publishing up to {@code upTo} keeps at most {@code window} unreceived by the slowest subscriber. */
    private static boolean awaitWindow(List<Probe> probes, long upTo, long window, long stallNanos) {
        if (window == Long.MAX_VALUE) {
            return true;
        }
        long since = System.nanoTime();
        long seen = Probe.slowest(probes);
        while (upTo - seen > window) {
            LockSupport.parkNanos(20_000);
            long now = Probe.slowest(probes);
            if (now != seen) {
                seen = now;
                since = System.nanoTime();
            } else if (System.nanoTime() - since > stallNanos) {
                return false;
            }
        }
        return true;
    }

    private RunResult result(Cell cell, List<Probe> probes, long warmup, long published, int size, CpuWindow cpu,
            GcWatch gc, String failure) {
        long delivered = 0;
        long errors = 0;
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        List<String> accounts = new ArrayList<>();
        for (Probe p : probes) {
            delivered += p.check.received();
            errors += p.check.errors(published);
            accounts.add(p.check.describe(published));
            if (p.warmNanos > 0) {
                start = Math.min(start, p.warmNanos);
            }
            end = Math.max(end, p.lastNanos);
        }
        long timedPerSub = published - warmup;
        long timedDeliveries = timedPerSub * cell.fanout();
        double seconds = (end - start) / 1e9;
        Map<String, Double> v = new LinkedHashMap<>();
        double rate = seconds > 0 ? timedDeliveries / seconds : Double.NaN;
        v.put("msgs_per_s", rate);
        v.put("mb_per_s", rate * size / 1e6);
        v.put("per_sub_mb_per_s", rate * size / 1e6 / cell.fanout());
        v.put("cpu_s_per_m", Stats.cpuSecondsPerMillion(cpu.totalNanos(), timedDeliveries));
        v.put("broker_cpu_s_per_m", Stats.cpuSecondsPerMillion(cpu.brokerNanos(), timedDeliveries));
        v.put("alloc_b_per_delivery", Stats.bytesPerDelivery(cpu.allocatedBytes(), timedDeliveries));
        v.put("broker_alloc_b_per_delivery", Stats.bytesPerDelivery(cpu.brokerAllocatedBytes(), timedDeliveries));
        v.put("gc_max_ms", gc == null ? Double.NaN : (double) gc.maxMillis());
        Map<String, Object> detail = new LinkedHashMap<>();
        long bytesPerSub = published * size;
        detail.put("messages_per_subscriber", published);
        detail.put("warmup_messages", warmup);
        detail.put("mib_per_subscriber", bytesPerSub / (double) (1 << 20));
        detail.put("timed_seconds", seconds);
        detail.put("gc_collections", gc == null ? 0 : gc.count());
        detail.put("other_processes_cpu_share", cpu.foreignShare());
        detail.put("udp_receive_buffer_drops", cpu.udpDrops());
        // Past 2x the largest in-flight buffer, or a long enough steady state: otherwise buffering may
        // pass for throughput and the figure is flagged.
        detail.put("sized_past_buffers", bytesPerSub >= VALID_BYTES_PER_SUBSCRIBER || seconds >= VALID_SECONDS);
        return new RunResult(v, delivered, errors, LatencyWorkload.summarize(accounts), failure, detail);
    }
}
