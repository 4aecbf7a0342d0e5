package dev.felix.bench.fanout;

import dev.felix.bench.common.NamedValues;
import dev.felix.bench.common.CpuClock;
import dev.felix.bench.common.UdpDrops;
import dev.felix.bench.common.PeerProcess;
import dev.felix.bench.common.Progress;
import dev.felix.bench.common.ProgressLine;
import dev.felix.bench.common.Results;
import dev.felix.bench.common.Stamp;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * {@code felix bench fanout}: one publisher sends {@code rate} messages a second for {@code seconds} to one stream
 * (a NATS subject) that {@code subscribers} subscribers receive, spread evenly over {@code connections}
 * connections, Felix beside NATS, each broker a fresh process of its own per run, all on this machine.
 *
 * <p>Per run it measures: how long subscribing every subscriber took (all requests sent at once; done when the
 * broker confirmed the last); delivery latency from the publisher's send to each subscriber's handler, over every
 * delivery after a warm-up (the JIT compilers of a fresh broker process are busy for several seconds under
 * this load, and a short run would measure them); deliveries made, lost (sequence numbers that never arrived, including a
 * missing tail after the drain) and out of order; subscriptions ended and connections lost; the broker process's
 * CPU over the publishing window (and per million deliveries); its memory per subscriber (live heap after a full
 * collection, for a JVM, and resident set), measured before and after subscribing. Rows are printed per run and
 * summarised as medians; JSON and text go under {@code bench/results/}.
 */
public final class FanoutBenchmark {

    /** How long the subscribers may take to receive what was sent once publishing stops. */
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** The drain also ends once nothing arrived for this long. */
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** What to run. */
    public record Options(List<Integer> subscribers, int connections, int rate, int warmupSeconds, int seconds,
                          int payloadBytes, int runs, List<String> systems, List<String> felixSettings,
                          Path resultsDir, int nodes) {

        static final List<String> SYSTEMS = List.of("felix", "nats", "nats-tls");

        public static String usage() {
            return """
                  --quick            1,000 and 10,000 subscribers, 3 s warm-up and 5 s timed, 1 run each (about 3 min)
                  --subscribers=N,M  subscriber counts (default 1000,10000)
                  --connections=N    subscriber connections, subscribers spread evenly (default 100)
                  --rate=N           messages published per second (default 100)
                  --warmup=N         seconds of publishing before the timed window: checked, not timed (default 5)
                  --seconds=N        seconds of timed publishing per run (default 10)
                  --payload=N        bytes after the 16-byte sequence/timestamp header (default 240: 256 B messages)
                  --runs=N           fresh broker runs per system and count (default 3)
                  --systems=A,B      of felix, nats, nats-tls (default all three)
                  --set=KEY=VALUE    a broker setting for the Felix broker (repeatable), e.g. --set=quic_io_threads=2
                  --nodes=N          1 (default) or 3: three Felix node processes (cluster_relay_subscribe: true) and
                                     three routed nats-server processes, subscriber connections round-robin over
                                     the nodes, the publisher on the stream's leader (NATS: on the first server)
                  --results=DIR      where JSON and text results go (default bench/results)
                Each run starts a fresh broker process. Run it alone: anything else on the machine is noise.""";
        }

        public static Options parse(String[] args) {
            List<Integer> subscribers = List.of(1000, 10_000);
            int connections = 100;
            int rate = 100;
            int warmup = 5;
            int seconds = 10;
            int payload = 240;
            int runs = 3;
            List<String> systems = SYSTEMS;
            List<String> settings = new ArrayList<>();
            Path results = Path.of("bench/results");
            int nodes = 1;
            if (Arrays.asList(args).contains("--quick")) { // smaller defaults; explicit values still win
                warmup = 3;
                seconds = 5;
                runs = 1;
            }
            for (String a : args) {
                String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
                String value = a.contains("=") ? a.substring(a.indexOf('=') + 1) : null;
                switch (name) {
                    case "--quick" -> {
                        // applied above, before the explicit values
                    }
                    case "--subscribers" -> subscribers = Arrays.stream(NamedValues.require(name, value).split(","))
                            .map(v -> NamedValues.positive(name, v)).toList();
                    case "--connections" -> connections = NamedValues.positive(name, value);
                    case "--rate" -> rate = NamedValues.positive(name, value);
                    case "--warmup" -> warmup = "0".equals(value) ? 0 : NamedValues.positive(name, value);
                    case "--seconds" -> seconds = NamedValues.positive(name, value);
                    case "--payload" -> payload = "0".equals(value) ? 0 : NamedValues.positive(name, value);
                    case "--runs" -> runs = NamedValues.positive(name, value);
                    case "--systems" -> {
                        systems = Arrays.asList(NamedValues.require(name, value).split(","));
                        for (String s : systems) {
                            if (!SYSTEMS.contains(s)) {
                                throw new IllegalArgumentException("--systems: unknown system '" + s + "' (known: "
                                        + String.join(", ", SYSTEMS) + ")");
                            }
                        }
                    }
                    case "--set" -> {
                        String setting = NamedValues.require(name, value);
                        if (!setting.contains("=") || setting.startsWith("=")) {
                            throw new IllegalArgumentException("--set needs KEY=VALUE, not '" + setting + "'");
                        }
                        settings.add(setting);
                    }
                    case "--results" -> results = Path.of(NamedValues.require(name, value));
                    case "--nodes" -> {
                        nodes = NamedValues.positive(name, value);
                        if (nodes != 1 && nodes != 3) {
                            throw new IllegalArgumentException("--nodes must be 1 or 3, not " + nodes);
                        }
                    }
                    default -> throw new IllegalArgumentException("unknown option '" + a + "'");
                }
            }
            return new Options(subscribers, connections, rate, warmup, seconds, payload, runs, systems,
                    List.copyOf(settings), results, nodes);
        }


    }

    /** One run's figures; latencies in microseconds, memory in bytes, -1 where unknown. */
    record Row(String system, int subscribers, int connections, int run, long readyMillis, long published,
               long expected, long delivered, long lost, long announced, long disordered, int ended,
               int lostConnections, long p50, long p99, long p999, long max, double deliveriesPerSecond,
               double brokerCpuPercent, double brokerCpuPerMillion, double clientCpuPercent, long heapPerSubscriber,
               long rssPerSubscriber, double machineBusyPercent, long udpDrops, String note) {
    }

    private final Options options;
    private final PrintStream out;
    private final StringBuilder text = new StringBuilder();

    private FanoutBenchmark(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    /** Runs everything, prints the tables, writes the results; returns whether every run completed. */
    public static boolean run(Options options, PrintStream out) throws Exception {
        return new FanoutBenchmark(options, out).run();
    }

    private void say(String line) {
        out.println(line);
        text.append(line).append('\n');
    }

    private boolean run() throws Exception {
        List<String> systems = new ArrayList<>();
        for (String s : options.systems()) {
            if (s.startsWith("nats") && PeerProcess.which("nats-server").isEmpty()) {
                say("-- " + s + ": skipped, nats-server is not installed (bench/peers/install.sh)");
            } else {
                systems.add(s);
            }
        }
        say(String.format(Locale.ROOT, "felix bench fanout: %s subscribers over %d connections; %d msgs/s of %d B,"
                        + " %d s warm-up then %d s timed; %d run(s) each, systems %s", options.subscribers(),
                options.connections(), options.rate(), options.payloadBytes() + Stamp.BYTES, options.warmupSeconds(),
                options.seconds(), options.runs(), String.join(", ", systems)));
        if (options.nodes() > 1) {
            say(options.nodes() + " nodes per system: subscriber connections round-robin over them; broker CPU, heap"
                    + " and RSS are summed over the nodes");
        }
        if (!options.felixSettings().isEmpty()) {
            say("felix broker settings: " + String.join(" ", options.felixSettings()));
        }
        say("load before the run: " + CpuClock.loadAverage());
        int steps = options.subscribers().size() * options.runs() * systems.size();
        ProgressLine progress = new ProgressLine(System.err, "fanout", steps, "runs");
        List<Row> rows = new ArrayList<>();
        boolean ok = true;
        // Systems alternate within each run number, so a drift of the machine affects them alike.
        for (int subscribers : options.subscribers()) {
            for (int run = 1; run <= options.runs(); run++) {
                for (String system : systems) {
                    Progress step = progress.step(system + " " + subscribers + " subs, run " + run, 100);
                    Row row = runOnce(system, subscribers, run, step, progress);
                    rows.add(row);
                    progress.message(String.format(Locale.ROOT, "  %s %,d subs run %d: ready %,d ms, p50 %,d µs,"
                                    + " p99 %,d µs, delivered %.1f%%%s", system, subscribers, run, row.readyMillis(),
                            row.p50(), row.p99(), 100.0 * row.delivered() / Math.max(1, row.expected()),
                            row.note().isEmpty() ? "" : " (" + row.note() + ")"));
                    ok &= row.note().isEmpty();
                }
            }
        }
        progress.finish();
        printRuns(rows);
        printMedians(rows, systems);
        say("load after the run: " + CpuClock.loadAverage());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("options", options.toString());
        List<Map<String, Object>> table = new ArrayList<>();
        for (Row r : rows) {
            table.add(asMap(r));
        }
        result.put("runs", table);
        Path json = Results.write(options.resultsDir(), options.nodes() > 1 ? "fanout-" + options.nodes() + "nodes"
                : "fanout", result);
        Results.writeText(json, text.toString());
        say("results: " + json);
        return ok;
    }

    private Row runOnce(String system, int subscribers, int run, Progress step, ProgressLine progress)
            throws Exception {
        int connections = Math.min(options.connections(), subscribers);
        long warmup = (long) options.rate() * options.warmupSeconds();
        long total = warmup + (long) options.rate() * options.seconds();
        Deliveries deliveries = new Deliveries(subscribers, connections, warmup);
        Path dir = Files.createTempDirectory("felix-bench-fanout-");
        try (FanoutSystem s = start(system, dir, options.nodes(), options.felixSettings())) {
            progress.detail("connecting " + connections + " connections");
            s.connect(connections);
            long heapBefore = s.jvm() ? summed(s, ProcessMemory::liveHeapBytes) : -1;
            long rssBefore = summed(s, ProcessMemory::rssBytes);
            long udpDrops0 = UdpDrops.sinceBoot(); // from subscribing to the end of the drain
            progress.detail("subscribing " + subscribers);
            long t0 = System.nanoTime();
            s.subscribe(deliveries);
            long readyMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            step.update(10);
            long heapAfter = s.jvm() ? summed(s, ProcessMemory::liveHeapBytes) : -1;
            long rssAfter = summed(s, ProcessMemory::rssBytes);

            long start = System.nanoTime();
            long period = TimeUnit.SECONDS.toNanos(1) / options.rate();
            long published = 0;
            // The timed window starts when the warm-up's last message is sent (at once without a warm-up).
            long cpu0 = summed(s, CpuClock::ofProcess);
            long busy0 = CpuClock.machineBusy();
            long client0 = CpuClock.process();
            long timedStart = start;
            long deliveredBefore = 0;
            for (long seq = 0; seq < total; seq++) {
                if (seq == warmup && warmup > 0) {
                    cpu0 = summed(s, CpuClock::ofProcess);
                    busy0 = CpuClock.machineBusy();
                    client0 = CpuClock.process();
                    timedStart = System.nanoTime();
                    deliveredBefore = deliveries.delivered();
                }
                long due = start + seq * period;
                long wait;
                while ((wait = due - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(wait);
                }
                if (!s.publish(Stamp.message(options.payloadBytes(), seq, System.nanoTime()))) {
                    break;
                }
                published++;
                if (seq % options.rate() == 0) {
                    step.update(10 + 70 * seq / total);
                    progress.detail(String.format(Locale.ROOT, "%,d of %,d sent, %,d delivered", seq, total,
                            deliveries.delivered()));
                }
            }
            // Drain: until every subscriber has the last message, or nothing arrives for a while, or time is up.
            long drainEnd = System.nanoTime() + DRAIN_NANOS;
            long lastCount = -1;
            long lastChange = System.nanoTime();
            while (deliveries.complete(published) < subscribers && System.nanoTime() < drainEnd) {
                long d = deliveries.delivered();
                if (d != lastCount) {
                    lastCount = d;
                    lastChange = System.nanoTime();
                } else if (System.nanoTime() - lastChange > STALL_NANOS) {
                    break;
                }
                progress.detail(String.format(Locale.ROOT, "draining: %,d of %,d subscribers complete",
                        deliveries.complete(published), subscribers));
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
            long elapsed = System.nanoTime() - timedStart;
            long cpu = summed(s, CpuClock::ofProcess) - cpu0;
            long busy = CpuClock.machineBusy() - busy0;
            long client = CpuClock.process() - client0;
            long udpDrops1 = UdpDrops.sinceBoot();
            long udpDrops = udpDrops0 < 0 || udpDrops1 < 0 ? -1 : udpDrops1 - udpDrops0;
            step.update(100);

            Histogram h = deliveries.latencyMicros();
            long delivered = deliveries.delivered();
            long timedDeliveries = delivered - deliveredBefore;
            long expected = published * subscribers;
            long lost = deliveries.lost(published);
            List<String> notes = new ArrayList<>();
            if (lost > 0) {
                notes.add(String.format(Locale.ROOT, "%,d lost", lost));
            }
            if (deliveries.disordered() > 0) {
                notes.add(deliveries.disordered() + " out of order");
            }
            if (deliveries.endedCount() > 0) {
                notes.add(deliveries.endedCount() + " subscriptions ended, first: " + deliveries.firstEnd());
            }
            int lostConnections = s.lostConnections();
            if (lostConnections > 0) {
                notes.add(lostConnections + " connections lost");
            }
            if (s.publishProblem() != null) {
                notes.add("publisher: " + s.publishProblem());
            }
            if (s instanceof NatsFanout n && n.problem() != null) {
                notes.add(n.problem());
            }
            double seconds = elapsed / 1e9;
            int cores = Runtime.getRuntime().availableProcessors();
            return new Row(system, subscribers, connections, run, readyMillis, published, expected, delivered, lost,
                    deliveries.announced(), deliveries.disordered(), deliveries.endedCount(), lostConnections,
                    h.getValueAtPercentile(50), h.getValueAtPercentile(99), h.getValueAtPercentile(99.9),
                    h.getMaxValue(), timedDeliveries / seconds, cpu < 0 ? -1 : 100.0 * cpu / elapsed,
                    cpu < 0 || timedDeliveries == 0 ? -1 : (cpu / 1e9) / (timedDeliveries / 1e6),
                    client0 < 0 ? -1 : 100.0 * client / elapsed,
                    heapBefore < 0 || heapAfter < 0 ? -1 : (heapAfter - heapBefore) / subscribers,
                    rssBefore < 0 || rssAfter < 0 ? -1 : (rssAfter - rssBefore) / subscribers,
                    busy < 0 ? -1 : 100.0 * busy / (elapsed * (double) cores), udpDrops, String.join("; ", notes));
        } finally {
            delete(dir);
        }
    }

    private static FanoutSystem start(String system, Path dir, int nodes, List<String> felixSettings)
            throws Exception {
        return switch (system) {
            case "felix" -> nodes > 1 ? FelixFanout.startCluster(dir, nodes, felixSettings)
                    : FelixFanout.start(dir, felixSettings);
            case "nats" -> NatsFanout.start(dir, false, nodes);
            case "nats-tls" -> NatsFanout.start(dir, true, nodes);
            default -> throw new IllegalArgumentException("unknown system " + system);
        };
    }

    /** A figure of every broker process (CPU time, memory) summed over the nodes; -1 if any is unknown. */
    static long summed(FanoutSystem s, java.util.function.LongUnaryOperator ofPid) {
        long sum = 0;
        for (long pid : s.brokerPids()) {
            long v = ofPid.applyAsLong(pid);
            if (v < 0) {
                return -1;
            }
            sum += v;
        }
        return sum;
    }

    private void printRuns(List<Row> rows) {
        say("");
        say("every run (latency, delivered/s, CPU and machine busy over the timed window and the drain after it;"
                + " lost over the whole run; CPU % = broker process, client % = this process: publisher and every"
                + " subscriber connection; UDP drops = datagrams the kernel dropped on full receive buffers, machine-wide,"
                + " from subscribing to the end of the drain: QUIC resends them late, TCP peers have none):");
        say(String.format(Locale.ROOT, "%-9s %7s %4s %9s %9s %9s %9s %9s %12s %12s %6s %9s %10s %9s %10s %7s %9s  %s",
                "system", "subs", "run", "ready ms", "p50 µs", "p99 µs", "p999 µs", "max µs", "delivered/s",
                "lost", "conns", "CPU %", "CPU s/M", "client %", "heap B/sub", "busy %", "UDP drops", "note"));
        for (Row r : rows) {
            say(String.format(Locale.ROOT, "%-9s %7d %4d %9d %9d %9d %9d %9d %12.0f %12d %6d %9.1f %10.1f %9.1f %10s"
                            + " %7.0f %9s  %s", r.system(), r.subscribers(), r.run(), r.readyMillis(), r.p50(), r.p99(),
                    r.p999(), r.max(), r.deliveriesPerSecond(), r.lost(), r.connections() - r.lostConnections(),
                    r.brokerCpuPercent(), r.brokerCpuPerMillion(), r.clientCpuPercent(),
                    r.heapPerSubscriber() < 0 ? "-" : Long.toString(r.heapPerSubscriber()),
                    r.machineBusyPercent(), r.udpDrops() < 0 ? "-" : Long.toString(r.udpDrops()), r.note()));
        }
    }

    private void printMedians(List<Row> rows, List<String> systems) {
        say("");
        say("medians over runs (RSS B/sub: resident set growth while subscribing, divided by subscribers):");
        say(String.format(Locale.ROOT, "%-9s %7s %9s %9s %9s %9s %12s %12s %10s %10s %10s", "system", "subs",
                "ready ms", "p50 µs", "p99 µs", "p999 µs", "delivered %", "CPU %", "CPU s/M", "heap B/sub",
                "RSS B/sub"));
        for (int subscribers : options.subscribers()) {
            for (String system : systems) {
                List<Row> mine = rows.stream().filter(r -> r.system().equals(system)
                        && r.subscribers() == subscribers).toList();
                if (mine.isEmpty()) {
                    continue;
                }
                say(String.format(Locale.ROOT, "%-9s %7d %9.0f %9.0f %9.0f %9.0f %12.2f %12.1f %10.1f %10s %10.0f",
                        system, subscribers, median(mine, Row::readyMillis), median(mine, Row::p50),
                        median(mine, Row::p99), median(mine, Row::p999),
                        median(mine, r -> 100.0 * r.delivered() / Math.max(1, r.expected())),
                        median(mine, Row::brokerCpuPercent), median(mine, Row::brokerCpuPerMillion),
                        system.equals("felix") ? String.format(Locale.ROOT, "%.0f",
                                median(mine, Row::heapPerSubscriber)) : "-",
                        median(mine, Row::rssPerSubscriber)));
            }
        }
    }

    private static double median(List<Row> rows, ToDoubleFunction<Row> f) {
        double[] v = rows.stream().mapToDouble(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static Map<String, Object> asMap(Row r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("system", r.system());
        m.put("subscribers", r.subscribers());
        m.put("connections", r.connections());
        m.put("run", r.run());
        m.put("ready_ms", r.readyMillis());
        m.put("published", r.published());
        m.put("expected_deliveries", r.expected());
        m.put("delivered", r.delivered());
        m.put("lost", r.lost());
        m.put("announced_lost", r.announced());
        m.put("out_of_order", r.disordered());
        m.put("subscriptions_ended", r.ended());
        m.put("connections_lost", r.lostConnections());
        m.put("p50_us", r.p50());
        m.put("p99_us", r.p99());
        m.put("p999_us", r.p999());
        m.put("max_us", r.max());
        m.put("deliveries_per_second", r.deliveriesPerSecond());
        m.put("broker_cpu_percent_of_core", r.brokerCpuPercent());
        m.put("broker_cpu_seconds_per_million", r.brokerCpuPerMillion());
        m.put("client_process_cpu_percent_of_core", r.clientCpuPercent());
        m.put("broker_heap_bytes_per_subscriber", r.heapPerSubscriber());
        m.put("broker_rss_bytes_per_subscriber", r.rssPerSubscriber());
        m.put("machine_busy_percent", r.machineBusyPercent());
        m.put("udp_receive_buffer_drops", r.udpDrops());
        m.put("note", r.note());
        return m;
    }


    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temp directory left behind is harmless
        }
    }
}
