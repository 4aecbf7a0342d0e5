package dev.felix.bench.storage;

import dev.felix.bench.common.Progress;
import dev.felix.bench.common.ProgressLine;
import dev.felix.bench.common.Results;
import dev.felix.storage.AppendResult;
import dev.felix.storage.FsyncPolicy;
import dev.felix.storage.LogConfig;
import dev.felix.storage.LogMetrics;
import dev.felix.storage.LogRecord;
import dev.felix.storage.SegmentedLog;
import dev.felix.storage.StorageRuntime;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * Storage benchmark: the disk's own fsync floor, then append throughput and per-append latency of one
 * {@link SegmentedLog} for every combination of fsync policy, writer threads and batch size, group-commit
 * fan-in, and recovery speed. Every run is verified after it is timed: the log is read back and each
 * writer's records must appear exactly once, in its own order, at contiguous offsets.
 *
 * <p>Latency is per append call: for {@code on_commit} it runs from the append until the group-committed
 * flush covering it completed, i.e. until the broker may acknowledge (append + {@code flush(last + 1)}:
 * timed where the future completes in the {@code inflight} model, on return of {@code awaitDurable} in the
 * {@code threads} model); for {@code periodic} and {@code none} it is the append call alone. Results: a plain-text table on stdout and a JSON file
 * {@code <out>/storage-<timestamp>.json}; progress on stderr.
 *
 * <p>Run directly: {@code java -cp ... dev.felix.bench.storage.StorageBenchmark --help}. Single-threaded
 * driver; not reentrant.
 */
public final class StorageBenchmark {
    /** Bytes written per fsync-floor probe (an append of one small block, like a small log append). */
    private static final int FLOOR_BLOCK = 128;
    /** Latency histogram range: 1 ns .. 60 s, 3 significant digits. */
    private static final long MAX_LATENCY_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** Bytes of the writer id + sequence prefix of each payload, used to verify. */
    private static final int ID_BYTES = 12;

    private StorageBenchmark() {
    }

    /**
     * Options; {@link #defaults()} gives the standard matrix.
     *
     * @param policies         fsync policies: {@code none}, {@code periodic}, {@code on_commit}
     * @param writers          writer thread counts
     * @param batches          records per append
     * @param recordSize       payload bytes per record (&ge; 12)
     * @param records          records per measured run (a run also stops after {@code maxSecondsPerRun})
     * @param warmupRecords    records appended before measuring (per run, same log)
     * @param maxSecondsPerRun bound on one measured run
     * @param periodicInterval interval of the periodic policy
     * @param writerModel      how {@code on_commit} writers are driven: {@code inflight} (each writer is a
     *                         publisher with one append in flight, issuing the next when the previous is
     *                         acknowledged, on a pool of as many threads as cores, like the broker's shard
     *                         writers) or {@code threads} (one blocking OS thread per writer)
     * @param floorTime        how long the fsync floor is sampled
     * @param recoveryBytes    size of the log reopened for the recovery measurement (0 = skip)
     * @param workDir          where logs and the fsync probe file live (one disk)
     * @param outputDir        where the JSON result goes
     */
    public record Options(List<String> policies, List<Integer> writers, List<Integer> batches, int recordSize,
                          long records, long warmupRecords, int maxSecondsPerRun, Duration periodicInterval,
                          String writerModel, Duration floorTime, long recoveryBytes, Path workDir, Path outputDir) {

        public Options {
            policies = List.copyOf(policies);
            writers = List.copyOf(writers);
            batches = List.copyOf(batches);
            for (final String p : policies) {
                policy(p, Duration.ofMillis(1));
            }
            if (recordSize < ID_BYTES) {
                throw new IllegalArgumentException("record size must be >= " + ID_BYTES + ", got " + recordSize);
            }
            if (records <= 0 || warmupRecords < 0 || maxSecondsPerRun <= 0 || recoveryBytes < 0) {
                throw new IllegalArgumentException("records > 0, warmup >= 0, max-seconds > 0, recovery-mb >= 0");
            }
            if (floorTime.isNegative() || floorTime.isZero()) {
                throw new IllegalArgumentException("floor time must be > 0");
            }
            if (!writerModel.equals("inflight") && !writerModel.equals("threads")) {
                throw new IllegalArgumentException("writer model must be inflight or threads, got " + writerModel);
            }
            if (writers.stream().anyMatch(w -> w <= 0) || batches.stream().anyMatch(b -> b <= 0)) {
                throw new IllegalArgumentException("writers and batch sizes must be > 0");
            }
        }

        /** on_commit/periodic/none x writers 1/8/64 x batch 1/16, 128-byte records, 200k records or 10 s per run. */
        public static Options defaults() {
            return new Options(List.of("none", "periodic", "on_commit"), List.of(1, 8, 64), List.of(1, 16), 128,
                200_000, 50_000, 10, FsyncPolicy.DEFAULT_INTERVAL, "inflight", Duration.ofSeconds(3), 300L << 20,
                Path.of(System.getProperty("java.io.tmpdir")), Path.of("bench", "results"));
        }

        /** Parses {@code --name=value} / {@code --name value} options over the defaults; see {@link #usage()}. */
        public static Options parse(final String... args) {
            final Options d = defaults();
            List<String> policies = d.policies;
            List<Integer> writers = d.writers;
            List<Integer> batches = d.batches;
            int recordSize = d.recordSize;
            long records = d.records;
            long warmup = d.warmupRecords;
            int maxSeconds = d.maxSecondsPerRun;
            Duration interval = d.periodicInterval;
            String writerModel = d.writerModel;
            Duration floorTime = d.floorTime;
            long recoveryBytes = d.recoveryBytes;
            Path work = d.workDir;
            Path out = d.outputDir;
            for (int i = 0; i < args.length; i++) {
                String name = args[i];
                String value;
                final int eq = name.indexOf('=');
                if (eq > 0) {
                    value = name.substring(eq + 1);
                    name = name.substring(0, eq);
                } else if (name.equals("--help") || name.equals("-h")) {
                    throw new IllegalArgumentException(usage());
                } else if (i + 1 < args.length) {
                    value = args[++i];
                } else {
                    throw new IllegalArgumentException("missing value for " + name + "\n" + usage());
                }
                switch (name) {
                    case "--fsync" -> policies = Arrays.stream(value.split(",")).map(String::trim).toList();
                    case "--writers" -> writers = ints(value);
                    case "--batch" -> batches = ints(value);
                    case "--record-size" -> recordSize = Integer.parseInt(value);
                    case "--records" -> records = Long.parseLong(value);
                    case "--warmup" -> warmup = Long.parseLong(value);
                    case "--max-seconds" -> maxSeconds = Integer.parseInt(value);
                    case "--periodic-ms" -> interval = Duration.ofMillis(Long.parseLong(value));
                    case "--writer-model" -> writerModel = value;
                    case "--floor-ms" -> floorTime = Duration.ofMillis(Long.parseLong(value));
                    case "--recovery-mb" -> recoveryBytes = Long.parseLong(value) << 20;
                    case "--dir" -> work = Path.of(value);
                    case "--out" -> out = Path.of(value);
                    default -> throw new IllegalArgumentException("unknown option " + name + "\n" + usage());
                }
            }
            return new Options(policies, writers, batches, recordSize, records, warmup, maxSeconds, interval,
                writerModel, floorTime, recoveryBytes, work, out);
        }

        public static String usage() {
            return String.join("\n",
                "storage benchmark options (defaults in brackets):",
                "  --fsync=none,periodic,on_commit   fsync policies [all three]",
                "  --writers=1,8,64                  writer threads [1,8,64]",
                "  --batch=1,16                      records per append [1,16]",
                "  --record-size=128                 payload bytes [128]",
                "  --records=200000                  records per measured run [200000]",
                "  --warmup=50000                    warm-up records per run [50000]",
                "  --max-seconds=10                  bound on one measured run [10]",
                "  --periodic-ms=250                 periodic fsync interval [250]",
                "  --writer-model=inflight           on_commit writers: inflight (publishers with one append in",
                "                                    flight each, on a core-sized pool) or threads (blocking",
                "                                    thread per writer) [inflight]; none/periodic use threads",
                "  --floor-ms=3000                   fsync floor sampling time [3000]",
                "  --recovery-mb=300                 log size for the recovery measurement, 0 = skip [300]",
                "  --dir=<tmp>                       data directory (same disk for logs and fsync probe) [java.io.tmpdir]",
                "  --out=bench/results               result directory [bench/results]");
        }

        private static List<Integer> ints(final String csv) {
            return Arrays.stream(csv.split(",")).map(String::trim).map(Integer::parseInt).toList();
        }
    }

    /**
     * Latency percentiles in microseconds.
     */
    public record Latency(long count, double p50Micros, double p99Micros, double p999Micros, double maxMicros,
                          double meanMicros) {
        static Latency of(final Histogram h) {
            return new Latency(h.getTotalCount(), h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3,
                h.getValueAtPercentile(99.9) / 1e3, h.getMaxValue() / 1e3, h.getMean() / 1e3);
        }
    }

    /** One measured combination. */
    public record Run(String policy, int writers, int batch, long records, long appends, double seconds,
                      double recordsPerSecond, double megabytesPerSecond, Latency appendLatency, long syncs,
                      double meanSyncMicros, double meanFanIn, long maxFanIn, boolean verified) {
    }

    /** Reopen of a log of {@code bytes}: full verification scan and the default (index-assisted) open. */
    public record Recovery(long bytes, int segments, long records, double fullScanSeconds,
                           double fullScanGibPerSecond, double defaultOpenSeconds) {
    }

    /** Whether the aims were met, with the numbers compared. */
    public record Aim(String name, String measured, String target, Boolean met) {
    }

    /** The whole result. */
    public record Report(Latency fsyncFloor, List<Run> runs, Recovery recovery, List<Aim> aims, Path resultFile) {
    }

    public static void main(final String[] args) throws Exception {
        final Options options;
        try {
            options = Options.parse(args);
        } catch (final IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        final Report report = run(options, System.out, System.err);
        System.exit(report.runs().stream().allMatch(Run::verified) ? 0 : 1);
    }

    /**
     * Runs the benchmark: prints the table to {@code out}, progress to {@code progress}, writes the JSON file.
     *
     * @return the report (also written to {@link Report#resultFile()})
     */
    public static Report run(final Options o, final PrintStream out, final PrintStream progress) throws IOException {
        Files.createDirectories(o.workDir());
        final Path work = Files.createTempDirectory(o.workDir(), "felix-storage-bench-");
        try {
            progress.println("storage bench: data in " + work + " (fsync floor measured there)");
            final Latency floor = fsyncFloor(work, o.floorTime());
            progress.printf(Locale.ROOT, "fsync floor: p50 %.1f us, p99 %.1f us (%d samples)%n", floor.p50Micros(),
                floor.p99Micros(), floor.count());
            final List<Run> runs = new ArrayList<>();
            final int steps = o.policies().size() * o.writers().size() * o.batches().size()
                + (o.recoveryBytes() > 0 ? 1 : 0);
            final ProgressLine line = new ProgressLine(progress, "storage", steps, "runs");
            for (final String policy : o.policies()) {
                for (final int writers : o.writers()) {
                    for (final int batch : o.batches()) {
                        runs.add(measure(o, work, policy, writers, batch, line));
                    }
                }
            }
            final Recovery recovery = o.recoveryBytes() > 0 ? recovery(o, work, line) : null;
            line.finish();
            final List<Aim> aims = aims(floor, runs);
            final Map<String, Object> json = json(o, floor, runs, recovery, aims);
            final Path file = Results.write(o.outputDir(), "storage", json);
            out.print(table(floor, runs, recovery, aims));
            out.println("result file: " + file);
            return new Report(floor, List.copyOf(runs), recovery, aims, file);
        } finally {
            deleteTree(work);
        }
    }

    /** Append + fdatasync of a small block, repeatedly, in the benchmark's own directory. */
    static Latency fsyncFloor(final Path dir, final Duration floorTime) throws IOException {
        final Path probe = dir.resolve("fsync-probe.bin");
        final Histogram h = new Histogram(MAX_LATENCY_NANOS, 3);
        try (FileChannel ch = FileChannel.open(probe, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            final ByteBuffer block = ByteBuffer.allocateDirect(FLOOR_BLOCK);
            final long end = System.nanoTime() + floorTime.toNanos();
            long pos = 0;
            for (int i = 0; i < 5; i++) { // settle: first syncs of a new file include its creation
                block.clear();
                pos += ch.write(block, pos);
                ch.force(false);
            }
            while (System.nanoTime() < end) {
                block.clear();
                final long t0 = System.nanoTime();
                pos += ch.write(block, pos);
                ch.force(false);
                h.recordValue(Math.min(MAX_LATENCY_NANOS, System.nanoTime() - t0));
            }
        } finally {
            Files.deleteIfExists(probe);
        }
        return Latency.of(h);
    }

    private static FsyncPolicy policy(final String name, final Duration interval) {
        return switch (name) {
            case "none" -> FsyncPolicy.none();
            case "periodic" -> FsyncPolicy.periodic(interval);
            case "on_commit" -> FsyncPolicy.onCommit();
            default -> throw new IllegalArgumentException("unknown fsync policy '" + name + "' (none, periodic, on_commit)");
        };
    }

    /** One combination: warm up, measure, close, reopen and verify. */
    private static Run measure(final Options o, final Path work, final String policyName, final int writers,
                               final int batch, final ProgressLine progress) throws IOException {
        final Path dir = work.resolve(policyName + "-w" + writers + "-b" + batch);
        final boolean onCommit = policyName.equals("on_commit");
        final LogConfig config = LogConfig.builder().fsyncPolicy(policy(policyName, o.periodicInterval())).build();
        final long[] perWriterCount = new long[writers];
        final Histogram latency = new Histogram(MAX_LATENCY_NANOS, 3);
        final double seconds;
        final long measuredRecords;
        final long measuredAppends;
        final long syncs;
        final long syncNanos;
        final long fanInRequests;
        final long fanInSyncs;
        final long maxFanIn;
        try (StorageRuntime runtime = StorageRuntime.create();
             SegmentedLog log = SegmentedLog.open(dir, config, runtime)) {
            final String label = String.format(Locale.ROOT, "%-9s writers=%-3d batch=%-3d", policyName, writers, batch);
            // warm-up on the same log (JIT, page cache, file growth); not timed
            final boolean inflight = o.writerModel().equals("inflight");
            drive(log, writers, batch, o.recordSize(), o.warmupRecords(), o.maxSecondsPerRun(), onCommit, inflight,
                perWriterCount, null, null);
            final LogMetrics m = runtime.metrics();
            final long syncs0 = m.syncs();
            final long syncNanos0 = m.syncNanosTotal();
            final long req0 = m.groupCommitRequests();
            final long gcs0 = m.groupCommitSyncs();
            final long recordsBefore = log.tailOffset();
            final Progress bar = progress.step(label, o.records());
            final long t0 = System.nanoTime();
            final long appends = drive(log, writers, batch, o.recordSize(), o.records(), o.maxSecondsPerRun(), onCommit,
                inflight, perWriterCount, latency, bar);
            seconds = (System.nanoTime() - t0) / 1e9;
            bar.update(o.records());
            measuredRecords = log.tailOffset() - recordsBefore;
            measuredAppends = appends;
            syncs = m.syncs() - syncs0;
            syncNanos = m.syncNanosTotal() - syncNanos0;
            fanInRequests = m.groupCommitRequests() - req0;
            fanInSyncs = m.groupCommitSyncs() - gcs0;
            maxFanIn = m.groupCommitMaxFanIn();
        }
        progress.detail("verifying");
        final boolean verified = verify(dir, config, perWriterCount, o.recordSize(), progress);
        deleteTree(dir);
        final double rps = measuredRecords / seconds;
        final Run run = new Run(policyName, writers, batch, measuredRecords, measuredAppends, seconds, rps,
            rps * (o.recordSize() + 28) / 1e6, Latency.of(latency), syncs, syncs == 0 ? 0 : syncNanos / 1e3 / syncs,
            fanInSyncs == 0 ? 0 : (double) fanInRequests / fanInSyncs, maxFanIn, verified);
        progress.message(String.format(Locale.ROOT,
            "%s writers=%d batch=%d: %,.0f records/s, p50 %.1f us, p99 %.1f us, fan-in %.1f, verified=%s",
            policyName, writers, batch, run.recordsPerSecond(), run.appendLatency().p50Micros(),
            run.appendLatency().p99Micros(), run.meanFanIn(), verified));
        return run;
    }

    /** One logical writer: reusable payloads stamped with its id and sequence, its own latency histogram. */
    private static final class Writer {
        final int id;
        final List<byte[]> payloads;
        final Histogram latency = new Histogram(MAX_LATENCY_NANOS, 3);
        long seq;

        Writer(final int id, final int batch, final int recordSize, final long seq) {
            this.id = id;
            this.seq = seq;
            final List<byte[]> p = new ArrayList<>(batch);
            for (int i = 0; i < batch; i++) {
                p.add(new byte[recordSize]);
            }
            this.payloads = List.copyOf(p);
        }

        /** Stamps the next batch; the log copies payloads during append, so the arrays are reused. */
        List<byte[]> next() {
            for (final byte[] p : payloads) {
                ByteBuffer.wrap(p).putInt(id).putLong(seq++);
            }
            return payloads;
        }
    }

    /** Shared run state of one {@link #drive} call. */
    private static final class Drive {
        final AtomicLong remaining;
        final java.util.concurrent.atomic.LongAdder appended = new java.util.concurrent.atomic.LongAdder();
        final java.util.concurrent.atomic.LongAdder appends = new java.util.concurrent.atomic.LongAdder();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicBoolean stop = new AtomicBoolean();
        final long deadline;
        final int batch;

        Drive(final long records, final int maxSeconds, final int batch) {
            this.remaining = new AtomicLong(records);
            this.deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(maxSeconds);
            this.batch = batch;
        }

        /** Claims one batch worth of the record budget. */
        boolean claim() {
            return !stop.get() && remaining.addAndGet(-batch) > -batch;
        }

        void done(final Writer w, final long t0, final long t1) {
            w.latency.recordValue(Math.min(MAX_LATENCY_NANOS, t1 - t0));
            appends.increment();
            appended.add(batch);
            if (t1 > deadline) {
                stop.set(true);
            }
        }

        void fail(final Throwable t) {
            failure.compareAndSet(null, t);
            stop.set(true);
        }
    }

    /**
     * Appends {@code records} (or for {@code maxSeconds}) from {@code writers} writers; returns the number of
     * append calls. Each payload starts with the writer id (4 bytes) and its per-writer sequence (8 bytes).
     */
    private static long drive(final SegmentedLog log, final int writers, final int batch, final int recordSize,
                              final long records, final int maxSeconds, final boolean onCommit, final boolean inflight,
                              final long[] perWriterCount, final Histogram latency, final Progress bar) {
        if (records == 0) {
            return 0;
        }
        final Drive d = new Drive(records, maxSeconds, batch);
        final Writer[] ws = new Writer[writers];
        for (int w = 0; w < writers; w++) {
            ws[w] = new Writer(w, batch, recordSize, perWriterCount[w]);
        }
        if (onCommit && inflight) {
            driveInflight(log, ws, d, bar);
        } else {
            driveThreads(log, ws, d, onCommit, bar);
        }
        if (d.failure.get() != null) {
            throw new IllegalStateException("writer failed: " + d.failure.get(), d.failure.get());
        }
        for (final Writer w : ws) {
            perWriterCount[w.id] = w.seq;
            if (latency != null) {
                latency.add(w.latency);
            }
        }
        return d.appends.sum();
    }

    /** One blocking OS thread per writer: append (and for on_commit wait for the flush), repeat. */
    private static void driveThreads(final SegmentedLog log, final Writer[] ws, final Drive d, final boolean onCommit,
                                     final Progress bar) {
        final CyclicBarrier start = new CyclicBarrier(ws.length);
        final List<Thread> threads = new ArrayList<>();
        for (final Writer w : ws) {
            threads.add(new Thread(() -> {
                try {
                    start.await();
                    while (d.claim()) {
                        final List<byte[]> batch = w.next();
                        final long t0 = System.nanoTime();
                        final AppendResult r = log.append(batch, t0 / 1000);
                        if (onCommit) {
                            log.awaitDurable(r.nextOffset()); // blocking writer: may lead the flush itself
                        }
                        d.done(w, t0, System.nanoTime());
                    }
                } catch (final Throwable t) {
                    d.fail(t);
                }
            }, "bench-writer-" + w.id));
        }
        threads.forEach(Thread::start);
        try {
            for (final Thread t : threads) {
                while (t.isAlive()) {
                    t.join(250);
                    if (bar != null) {
                        bar.update(d.appended.sum());
                    }
                }
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Each writer is a publisher with one append in flight: append, request the flush, and when it completes
     * (the acknowledgement) issue the next append, all on a pool with as many threads as cores.
     */
    private static void driveInflight(final SegmentedLog log, final Writer[] ws, final Drive d, final Progress bar) {
        final int threads = Math.min(ws.length, Runtime.getRuntime().availableProcessors());
        final java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads, r -> {
            final Thread t = new Thread(r, "bench-driver");
            t.setDaemon(true);
            return t;
        });
        final java.util.concurrent.CountDownLatch finished = new java.util.concurrent.CountDownLatch(ws.length);
        for (final Writer w : ws) {
            pool.execute(() -> step(log, w, d, pool, finished));
        }
        try {
            while (!finished.await(250, TimeUnit.MILLISECONDS)) {
                if (bar != null) {
                    bar.update(d.appended.sum());
                }
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } finally {
            pool.shutdown();
        }
    }

    private static void step(final SegmentedLog log, final Writer w, final Drive d,
                             final java.util.concurrent.Executor pool, final java.util.concurrent.CountDownLatch finished) {
        if (!d.claim()) {
            finished.countDown();
            return;
        }
        try {
            final List<byte[]> batch = w.next();
            final long t0 = System.nanoTime();
            final AppendResult r = log.append(batch, t0 / 1000);
            // The acknowledgement is timed where the future completes (that is when a broker could send it);
            // the hop back to the driver pool for the next append is the benchmark's own overhead.
            log.flush(r.nextOffset()).whenComplete((ok, error) -> {
                if (error != null) {
                    d.fail(error);
                    finished.countDown();
                    return;
                }
                d.done(w, t0, System.nanoTime());
                pool.execute(() -> step(log, w, d, pool, finished));
            });
        } catch (final Throwable t) {
            d.fail(t);
            finished.countDown();
        }
    }

    /**
     * Reopens the log and reads everything: offsets contiguous from 0, and each writer's sequence numbers
     * appear exactly once and in order, up to the count it appended.
     */
    private static boolean verify(final Path dir, final LogConfig config, final long[] perWriterCount,
                                  final int recordSize, final ProgressLine progress) {
        final long[] nextSeq = new long[perWriterCount.length];
        final long total = Arrays.stream(perWriterCount).sum();
        try (StorageRuntime runtime = StorageRuntime.create();
             SegmentedLog log = SegmentedLog.open(dir, config, runtime)) {
            if (log.tailOffset() != total) {
                progress.message("VERIFY FAILED: tail " + log.tailOffset() + " != appended " + total);
                return false;
            }
            long from = 0;
            while (from < total) {
                final List<LogRecord> got = log.read(from, 10_000, 16 << 20).recordsOrThrow();
                for (final LogRecord r : got) {
                    final ByteBuffer b = ByteBuffer.wrap(r.payload());
                    final int writer = b.getInt();
                    final long seq = b.getLong();
                    if (r.offset() != from || r.payload().length != recordSize || writer < 0
                        || writer >= nextSeq.length || seq != nextSeq[writer]) {
                        progress.message("VERIFY FAILED at offset " + r.offset() + ": writer " + writer + " seq " + seq);
                        return false;
                    }
                    nextSeq[writer]++;
                    from++;
                }
            }
            return Arrays.equals(nextSeq, perWriterCount);
        }
    }

    /** Builds a log of {@code recoveryBytes}, closes it, then times a full-verification open and a default open. */
    private static Recovery recovery(final Options o, final Path work, final ProgressLine progress) throws IOException {
        final Path dir = work.resolve("recovery");
        final LogConfig write = LogConfig.builder().fsyncPolicy(FsyncPolicy.none()).build();
        final int perAppend = 64;
        final long frame = 28L + o.recordSize();
        final long records = o.recoveryBytes() / frame / perAppend * perAppend;
        final Progress bar = progress.step("recovery: writing " + (o.recoveryBytes() >> 20) + " MiB", records);
        try (StorageRuntime runtime = StorageRuntime.create(); SegmentedLog log = SegmentedLog.open(dir, write, runtime)) {
            final List<byte[]> payloads = new ArrayList<>();
            for (int i = 0; i < perAppend; i++) {
                payloads.add(new byte[o.recordSize()]);
            }
            for (long n = 0; n < records; n += perAppend) {
                log.append(payloads, n);
                if (n % (perAppend * 1024L) == 0) {
                    bar.update(n);
                }
            }
            bar.update(records);
        }
        progress.detail("timing a full-verification open");
        final long bytes;
        final int segments;
        final double full;
        final double dflt;
        try (StorageRuntime runtime = StorageRuntime.create()) {
            final long t0 = System.nanoTime();
            try (SegmentedLog log = SegmentedLog.open(dir, write.toBuilder().verifyAllOnOpen(true).build(), runtime)) {
                full = (System.nanoTime() - t0) / 1e9;
                bytes = log.recoveryReport().bytesScanned();
                segments = log.segmentCount();
                if (log.tailOffset() != records) {
                    throw new IllegalStateException("recovery lost records: " + log.tailOffset() + " != " + records);
                }
            }
            final long t1 = System.nanoTime();
            try (SegmentedLog log = SegmentedLog.open(dir, write, runtime)) {
                dflt = (System.nanoTime() - t1) / 1e9;
            }
        }
        deleteTree(dir);
        final Recovery r = new Recovery(bytes, segments, records, full, bytes / full / (1L << 30), dflt);
        progress.message(String.format(Locale.ROOT, "recovery: %,d bytes verified in %.3f s = %.2f GiB/s; default open %.3f s",
            bytes, full, r.fullScanGibPerSecond(), dflt));
        return r;
    }

    private static Run find(final List<Run> runs, final String policy, final int writers, final int batch) {
        return runs.stream().filter(r -> r.policy().equals(policy) && r.writers() == writers && r.batch() == batch)
            .findFirst().orElse(null);
    }

    static List<Aim> aims(final Latency floor, final List<Run> runs) {
        final List<Aim> aims = new ArrayList<>();
        final Run oc1 = find(runs, "on_commit", 1, 1);
        aims.add(oc1 == null ? new Aim("on_commit p50 <= 1.5 x fsync floor p50", "not run", "", null)
            : new Aim("on_commit p50 <= 1.5 x fsync floor p50 (1 writer, batch 1)",
            String.format(Locale.ROOT, "%.1f us = %.2f x floor %.1f us", oc1.appendLatency().p50Micros(),
                oc1.appendLatency().p50Micros() / floor.p50Micros(), floor.p50Micros()),
            String.format(Locale.ROOT, "<= %.1f us", 1.5 * floor.p50Micros()),
            oc1.appendLatency().p50Micros() <= 1.5 * floor.p50Micros()));
        final Run oc64 = find(runs, "on_commit", 64, 1);
        aims.add(oc1 == null || oc64 == null ? new Aim("on_commit 64 writers >= 40 x 1 writer", "not run", "", null)
            : new Aim("on_commit 64 writers >= 40 x 1 writer (batch 1)",
            String.format(Locale.ROOT, "%,.0f vs %,.0f records/s = %.1f x", oc64.recordsPerSecond(),
                oc1.recordsPerSecond(), oc64.recordsPerSecond() / oc1.recordsPerSecond()),
            ">= 40 x", oc64.recordsPerSecond() >= 40 * oc1.recordsPerSecond()));
        final Run p1 = find(runs, "periodic", 1, 1);
        aims.add(p1 == null ? new Aim("periodic >= 500,000 records/s", "not run", "", null)
            : new Aim("periodic >= 500,000 records/s (1 writer, batch 1)",
            String.format(Locale.ROOT, "%,.0f records/s", p1.recordsPerSecond()), ">= 500,000",
            p1.recordsPerSecond() >= 500_000));
        return aims;
    }

    static String table(final Latency floor, final List<Run> runs, final Recovery recovery, final List<Aim> aims) {
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "fsync floor (append %d B + fdatasync, same dir): p50 %.1f us  p99 %.1f us  "
            + "p99.9 %.1f us  (%d samples)%n%n", FLOOR_BLOCK, floor.p50Micros(), floor.p99Micros(), floor.p999Micros(),
            floor.count()));
        sb.append(String.format(Locale.ROOT, "%-9s %7s %5s %10s %12s %8s %10s %10s %10s %8s %8s %7s %7s %s%n", "policy",
            "writers", "batch", "records", "records/s", "MB/s", "p50 us", "p99 us", "p99.9 us", "syncs", "sync us",
            "fan-in", "max-fi", "verified"));
        for (final Run r : runs) {
            sb.append(String.format(Locale.ROOT, "%-9s %7d %5d %10d %12.0f %8.1f %10.1f %10.1f %10.1f %8d %8.1f %7.1f %7d %s%n",
                r.policy(), r.writers(), r.batch(), r.records(), r.recordsPerSecond(), r.megabytesPerSecond(),
                r.appendLatency().p50Micros(), r.appendLatency().p99Micros(), r.appendLatency().p999Micros(), r.syncs(),
                r.meanSyncMicros(), r.meanFanIn(), r.maxFanIn(), r.verified() ? "yes" : "NO"));
        }
        if (recovery != null) {
            sb.append(String.format(Locale.ROOT, "%nrecovery: %,d bytes in %d segments (%,d records): full verification "
                + "%.3f s = %.2f GiB/s; default open (index-assisted sealed segments) %.3f s%n", recovery.bytes(),
                recovery.segments(), recovery.records(), recovery.fullScanSeconds(), recovery.fullScanGibPerSecond(),
                recovery.defaultOpenSeconds()));
        }
        sb.append('\n');
        for (final Aim a : aims) {
            sb.append(String.format(Locale.ROOT, "aim %-55s %-8s measured %s (target %s)%n", a.name(),
                a.met() == null ? "n/a" : a.met() ? "MET" : "NOT MET", a.measured(), a.target()));
        }
        return sb.toString();
    }

    private static Map<String, Object> json(final Options o, final Latency floor, final List<Run> runs,
                                            final Recovery recovery, final List<Aim> aims) {
        final Map<String, Object> m = new LinkedHashMap<>();
        final Map<String, Object> opts = new LinkedHashMap<>();
        opts.put("policies", o.policies());
        opts.put("writers", o.writers());
        opts.put("batches", o.batches());
        opts.put("record_size", o.recordSize());
        opts.put("records_per_run", o.records());
        opts.put("warmup_records", o.warmupRecords());
        opts.put("max_seconds_per_run", o.maxSecondsPerRun());
        opts.put("periodic_interval_ms", o.periodicInterval().toMillis());
        opts.put("writer_model", o.writerModel());
        opts.put("floor_ms", o.floorTime().toMillis());
        opts.put("recovery_bytes", o.recoveryBytes());
        opts.put("work_dir", o.workDir().toAbsolutePath().toString());
        m.put("options", opts);
        m.put("fsync_floor_us", latencyMap(floor));
        final List<Object> rs = new ArrayList<>();
        for (final Run r : runs) {
            final Map<String, Object> x = new LinkedHashMap<>();
            x.put("policy", r.policy());
            x.put("writers", r.writers());
            x.put("batch", r.batch());
            x.put("records", r.records());
            x.put("appends", r.appends());
            x.put("seconds", r.seconds());
            x.put("records_per_second", r.recordsPerSecond());
            x.put("megabytes_per_second", r.megabytesPerSecond());
            x.put("append_latency_us", latencyMap(r.appendLatency()));
            x.put("syncs", r.syncs());
            x.put("mean_sync_us", r.meanSyncMicros());
            x.put("group_commit_mean_fan_in", r.meanFanIn());
            x.put("group_commit_max_fan_in", r.maxFanIn());
            x.put("verified", r.verified());
            rs.add(x);
        }
        m.put("runs", rs);
        if (recovery != null) {
            final Map<String, Object> x = new LinkedHashMap<>();
            x.put("bytes", recovery.bytes());
            x.put("segments", recovery.segments());
            x.put("records", recovery.records());
            x.put("full_scan_seconds", recovery.fullScanSeconds());
            x.put("full_scan_gib_per_second", recovery.fullScanGibPerSecond());
            x.put("default_open_seconds", recovery.defaultOpenSeconds());
            m.put("recovery", x);
        }
        final List<Object> as = new ArrayList<>();
        for (final Aim a : aims) {
            final Map<String, Object> x = new LinkedHashMap<>();
            x.put("aim", a.name());
            x.put("measured", a.measured());
            x.put("target", a.target());
            x.put("met", a.met());
            as.add(x);
        }
        m.put("aims", as);
        return m;
    }

    private static Map<String, Object> latencyMap(final Latency l) {
        final Map<String, Object> x = new LinkedHashMap<>();
        x.put("count", l.count());
        x.put("p50", l.p50Micros());
        x.put("p99", l.p99Micros());
        x.put("p999", l.p999Micros());
        x.put("max", l.maxMicros());
        x.put("mean", l.meanMicros());
        return x;
    }

    private static void deleteTree(final Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            for (final Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
