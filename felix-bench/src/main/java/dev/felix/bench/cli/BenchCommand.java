package dev.felix.bench.cli;

import dev.felix.bench.compare.CompareBenchmark;
import dev.felix.bench.latency.LatencyBenchmark;
import dev.felix.bench.micro.MicroBenchmarks;
import dev.felix.bench.storage.StorageBenchmark;
import dev.felix.bench.system.Targets;
import dev.felix.bench.throughput.ThroughputBenchmark;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code felix bench ...}: benchmarks that print tables and write JSON under bench/results/. */
@Command(name = "bench", mixinStandardHelpOptions = true, versionProvider = BenchVersion.class,
        description = {"Benchmarks. Each prints a table and writes JSON under bench/results/.",
            "Start with --quick; each command's --help says how long a full run takes.",
            "Peers for compare and watch: bench/peers/install.sh (nats-server, redis-server,",
            "etcd-server)."},
        subcommands = {BenchCommand.Latency.class, BenchCommand.Throughput.class, BenchCommand.Compare.class,
            BenchWatchCommand.class, BenchCommand.Storage.class, BenchCommand.Micro.class, BenchCommand.Cluster.class,
        BenchCommand.Fanout.class})
final class BenchCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** Options every end-to-end workload shares; null means "the workload's default (or --quick's)". */
    static final class Common {
        @Option(names = "--quick", description = "a short run for a first look (fewer runs, smaller sizes; not a record)")
        boolean quick;

        @Option(names = "--payload", split = ",", description = "payload sizes in bytes after the 16-byte header (default 0,256,1024,4096)")
        List<Integer> payloads;

        @Option(names = "--fanout", split = ",", description = "subscriber counts (default 1,10)")
        List<Integer> fanouts;

        @Option(names = "--runs", description = "fresh runs per cell and system; the median is reported (default 5)")
        Integer runs;

        @Option(names = "--results", defaultValue = "bench/results", description = "results directory (default bench/results)")
        Path results;

        @Option(names = "--set", paramLabel = "SETTING=VALUE", description = "a Felix broker setting, e.g. --set shard_executor=inline")
        Map<String, String> settings = new HashMap<>();

        static <T> T or(T value, T fallback) {
            return value != null ? value : fallback;
        }
    }

    /**
     * Each run starts and stops a broker, whose start/stop lines would bury the progress bars: unless
     * FELIX_LOG_LEVEL asks otherwise, broker logging drops to warnings while a benchmark runs.
     */
    static void quietBrokerLogs() {
        if (System.getenv("FELIX_LOG_LEVEL") == null
                && org.slf4j.LoggerFactory.getLogger("dev.felix") instanceof ch.qos.logback.classic.Logger l) {
            l.setLevel(ch.qos.logback.classic.Level.WARN);
        }
    }

    @Command(name = "latency", mixinStandardHelpOptions = true, versionProvider = BenchVersion.class,
            description = {"Closed-loop publish-to-receipt latency at every subscriber.",
                "Batch 1, one message in flight, the next publish after the ack; median of fresh",
                "runs. Takes about 6-7 minutes (41 runs of 22,000 messages); --quick under a minute."})
    static final class Latency implements Callable<Integer> {
        @picocli.CommandLine.Mixin
        Common common = new Common();

        @Option(names = "--warmup", description = "unmeasured messages at the start of each run (default 2000)")
        Integer warmup;

        @Option(names = "--count", description = "measured messages per run (default 20000; --quick 5000)")
        Integer count;

        @Option(names = "--jit-warmup", description = "messages of one unmeasured run per system first, so the JIT has compiled the path (default 20000)")
        Integer jitWarmup;

        @Option(names = "--systems", split = ",", defaultValue = "felix", description = "systems to run (default felix; any of ${COMPLETION-CANDIDATES})",
                completionCandidates = SystemNames.class)
        List<String> systems;

        @Override
        public Integer call() throws Exception {
            quietBrokerLogs();
            return LatencyBenchmark.run(options(common, warmup, count, jitWarmup, systems), System.out, System.err).ok() ? 0 : 1;
        }

        static LatencyBenchmark.Options options(Common c, Integer warmup, Integer count, Integer jitWarmup,
                List<String> systems) {
            LatencyBenchmark.Options d = c.quick ? LatencyBenchmark.Options.quick() : LatencyBenchmark.Options.defaults();
            return new LatencyBenchmark.Options(Common.or(c.payloads, d.payloads()), Common.or(c.fanouts, d.fanouts()),
                    Common.or(warmup, d.warmup()), Common.or(count, d.count()), Common.or(c.runs, d.runs()),
                    Common.or(jitWarmup, d.jitWarmup()), c.results, c.settings, systems);
        }
    }

    @Command(name = "throughput", mixinStandardHelpOptions = true, versionProvider = BenchVersion.class,
            description = {"Lossless throughput with every delivery sequence-checked.",
                "Batch 64, block policies end to end, every delivery counted and sequence-checked at",
                "every subscriber; runs sized past every buffer; median of fresh runs, after 20 s of",
                "unmeasured warm-up runs. Takes 15-25 minutes (40 runs, each at most 30 s past its",
                "warm-up tenth, and the warm-up runs); --quick about a minute."})
    static final class Throughput implements Callable<Integer> {
        @picocli.CommandLine.Mixin
        Common common = new Common();

        @Option(names = "--batch", description = "messages per publish (default 64)")
        Integer batch;

        @Option(names = "--mib-per-sub", description = "run size: MiB delivered to each subscriber (default 256; --quick 32)")
        Long mibPerSub;

        @Option(names = "--max-seconds", description = "time cap per run after the warm-up (default 30; --quick 5)")
        Integer maxSeconds;

        @Option(names = "--warmup-seconds", description = "unmeasured warm-up runs on the first cell, per system, for "
                + "at least this long (default 20; --quick 5; 0: one run); every later cell gets one")
        Integer warmupSeconds;

        @Option(names = "--window-mib", description = "in-flight bound for peers without backpressure (default 8)")
        Long windowMib;

        @Option(names = "--systems", split = ",", defaultValue = "felix", description = "systems to run (default felix; any of ${COMPLETION-CANDIDATES})",
                completionCandidates = SystemNames.class)
        List<String> systems;

        @Override
        public Integer call() throws Exception {
            quietBrokerLogs();
            return ThroughputBenchmark.run(options(common, batch, mibPerSub, maxSeconds, warmupSeconds, windowMib,
                    systems), System.out, System.err).ok() ? 0 : 1;
        }

        static ThroughputBenchmark.Options options(Common c, Integer batch, Long mibPerSub, Integer maxSeconds,
                Integer warmupSeconds, Long windowMib, List<String> systems) {
            ThroughputBenchmark.Options d = c.quick ? ThroughputBenchmark.Options.quick()
                    : ThroughputBenchmark.Options.defaults();
            return new ThroughputBenchmark.Options(Common.or(c.payloads, d.payloads()), Common.or(c.fanouts, d.fanouts()),
                    Common.or(batch, d.batch()), Common.or(mibPerSub, d.mibPerSubscriber()),
                    Common.or(maxSeconds, d.maxSeconds()), Common.or(warmupSeconds, d.warmupSeconds()),
                    Common.or(windowMib, d.windowMib()),
                    Common.or(c.runs, d.runs()), c.results, c.settings, systems);
        }
    }

    @Command(name = "compare", mixinStandardHelpOptions = true, versionProvider = BenchVersion.class,
            description = {"Felix side by side with NATS, Redis and JetStream on this machine.",
                "NATS core and Redis pub/sub, each with and without TLS: latency and throughput,",
                "systems interleaved run by run, Felix ÷ peer for every figure; then durable",
                "streams vs NATS JetStream. Tables and JSON go to bench/results/compare-*.{txt,json}.",
                "A missing peer is skipped (install: bench/peers/install.sh). Takes about an hour",
                "with every peer installed; --quick under 5 minutes."})
    static final class Compare implements Callable<Integer> {
        @Option(names = "--quick", description = "256 B latency and 1 KiB throughput at fanout 1 and 10, 3 runs each, "
                + "small runs; durable section felix-durable vs jetstream (under 5 minutes)")
        boolean quick;

        @Option(names = "--runs", description = "fresh runs per cell and system (default 5; --quick 3)")
        Integer runs;

        @Option(names = "--latency-payload", split = ",", description = "latency payload sizes (default 0,256,1024,4096; --quick 256)")
        List<Integer> latencyPayloads;

        @Option(names = "--throughput-payload", split = ",", description = "throughput payload sizes (default 256,1024,4096; --quick 1024)")
        List<Integer> throughputPayloads;

        @Option(names = "--fanout", split = ",", description = "subscriber counts (default 1,10)")
        List<Integer> fanouts;

        @Option(names = "--count", description = "latency: measured messages per run (default 20000; --quick 2500)")
        Integer count;

        @Option(names = "--mib-per-sub", description = "throughput: MiB per subscriber per run (default 128; --quick 16)")
        Long mibPerSub;

        @Option(names = "--max-seconds", description = "throughput: time cap per run (default 30; --quick 3)")
        Integer maxSeconds;

        @Option(names = "--warmup-seconds", description = "throughput: unmeasured warm-up on the first cell, per "
                + "system, at least this long (default 20; --quick 5; 0: one run); every later cell gets one")
        Integer warmupSeconds;

        @Option(names = "--systems", split = ",", description = "pub/sub systems (default felix,nats-tls,nats,redis-tls,redis; known: ${COMPLETION-CANDIDATES})",
                completionCandidates = SystemNames.class)
        List<String> systems;

        @Option(names = "--durable", split = ",", description = "durable systems for the append + consume section "
                + "(default felix-durable,felix-durable-sync,jetstream-tls,jetstream; --quick felix-durable,jetstream; "
                + "'none' skips it)")
        List<String> durable;

        @Option(names = "--results", defaultValue = "bench/results", description = "results directory")
        Path results;

        @Option(names = "--set", paramLabel = "SETTING=VALUE", description = "a Felix broker setting")
        Map<String, String> settings = new HashMap<>();

        @Override
        public Integer call() throws Exception {
            quietBrokerLogs();
            return CompareBenchmark.run(options(), System.out, System.err).ok() ? 0 : 1;
        }

        /** The defaults (or --quick's) with whatever was given on the command line over them. */
        CompareBenchmark.Options options() {
            CompareBenchmark.Options d = quick ? CompareBenchmark.Options.quick() : CompareBenchmark.Options.defaults();
            LatencyBenchmark.Options l = d.latency();
            ThroughputBenchmark.Options t = d.throughput();
            List<String> names = Common.or(systems, d.systems());
            List<String> durableNames = durable == null ? d.durable()
                    : durable.equals(List.of("none")) ? List.of() : durable;
            return new CompareBenchmark.Options(
                    new LatencyBenchmark.Options(Common.or(latencyPayloads, l.payloads()), Common.or(fanouts, l.fanouts()),
                            l.warmup(), Common.or(count, l.count()), Common.or(runs, l.runs()), l.jitWarmup(), results,
                            settings, names),
                    new ThroughputBenchmark.Options(Common.or(throughputPayloads, t.payloads()),
                            Common.or(fanouts, t.fanouts()), t.batch(), Common.or(mibPerSub, t.mibPerSubscriber()),
                            Common.or(maxSeconds, t.maxSeconds()), Common.or(warmupSeconds, t.warmupSeconds()),
                            t.windowMib(), Common.or(runs, t.runs()), results,
                            settings, names),
                    names, durableNames, results);
        }
    }

    /** The system names for help text. */
    static final class SystemNames extends ArrayList<String> {
        SystemNames() {
            super(Targets.KNOWN);
        }
    }

    @Command(name = "micro", mixinStandardHelpOptions = true, versionProvider = BenchVersion.class,
            description = {"JMH micro-benchmarks of the codec, shard fanout and log append.",
                "Arguments go to JMH, e.g. 'felix bench micro Codec -f 1 -wi 2 -i 3' (default: every",
                "benchmark, short settings: 1 fork, 2 + 3 one-second iterations per benchmark and",
                "parameter set; 20 of them, about 2-3 minutes in all)."})
    static final class Micro implements Callable<Integer> {
        @picocli.CommandLine.Unmatched
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() throws Exception {
            return MicroBenchmarks.run(args.toArray(String[]::new));
        }
    }

    @Command(name = "cluster", description = {"Replicated publish latency and throughput, and failover time.",
        "A durable stream on three node processes with leader and with quorum consistency, beside a",
        "single node and NATS JetStream R3 (three nats-server processes); then the quorum leader",
        "SIGKILLed again and again, timed until a survivor acknowledges a publish. Takes about 4",
        "minutes (--quick about 2). Options: felix bench cluster --help."})
    static final class Cluster implements Callable<Integer> {
        @picocli.CommandLine.Unmatched
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() throws Exception {
            if (args.contains("--help") || args.contains("-h")) {
                System.out.println("Usage: felix bench cluster [--option=value ...]");
                System.out.println(dev.felix.bench.cluster.ClusterBenchmark.Options.usage());
                return 0;
            }
            dev.felix.bench.cluster.ClusterBenchmark.Options options;
            try {
                options = dev.felix.bench.cluster.ClusterBenchmark.Options.parse(args.toArray(String[]::new));
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
            return dev.felix.bench.cluster.ClusterBenchmark.run(options, System.out) ? 0 : 1;
        }
    }

    @Command(name = "fanout", description = {"Thousands of subscribers of one stream over many connections.",
        "1,000 and 10,000 subscribers over 100 connections, 100 msgs/s of 256 B, Felix beside NATS",
        "(plain and TLS), a fresh broker process per run: time to subscribe all, delivery p50/p99 to",
        "every subscriber, loss, broker CPU and memory per subscriber. Takes about 8 minutes",
        "(--quick about 3). Options: felix bench fanout --help."})
    static final class Fanout implements Callable<Integer> {
        @picocli.CommandLine.Unmatched
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() throws Exception {
            if (args.contains("--help") || args.contains("-h")) {
                System.out.println("Usage: felix bench fanout [--option=value ...]");
                System.out.println(dev.felix.bench.fanout.FanoutBenchmark.Options.usage());
                return 0;
            }
            dev.felix.bench.fanout.FanoutBenchmark.Options options;
            try {
                options = dev.felix.bench.fanout.FanoutBenchmark.Options.parse(args.toArray(String[]::new));
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
            return dev.felix.bench.fanout.FanoutBenchmark.run(options, System.out) ? 0 : 1;
        }
    }

    @Command(name = "storage", description = {"Log append throughput and latency per fsync policy, and recovery.",
        "Per fsync policy, writer count and batch size, beside the disk's own fsync floor;",
        "then recovery speed. Takes about 3-4 minutes (18 runs, on_commit ones capped at",
        "10 s measured). Options: felix bench storage --help."})
    static final class Storage implements Callable<Integer> {
        @picocli.CommandLine.Unmatched
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() throws Exception {
            if (args.contains("--help") || args.contains("-h")) {
                System.out.println("Usage: felix bench storage [--option=value ...]");
                System.out.println(StorageBenchmark.Options.usage());
                return 0;
            }
            StorageBenchmark.Options options;
            try {
                options = StorageBenchmark.Options.parse(args.toArray(String[]::new));
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
            StorageBenchmark.Report report = StorageBenchmark.run(options, System.out, System.err);
            return report.runs().stream().allMatch(StorageBenchmark.Run::verified) ? 0 : 1;
        }
    }
}
