package dev.felix.bench.cli;

import dev.felix.bench.watch.WatchBenchmark;
import dev.felix.bench.watch.WatchSystems;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code felix bench watch}: many watchers keeping a local copy of a changing key space, Felix beside etcd,
 * NATS KV and Redis keyspace notifications. Exit status 1 if any Felix run failed (a peer that diverges is
 * reported in the table, not as an error of the command).
 */
@Command(name = "watch", mixinStandardHelpOptions = true, versionProvider = BenchVersion.class,
        description = {"Cache watch: propagation latency and top rate to 1-100 mirrors.",
            "Zipf-skewed puts over 2,000 keys; 1, 10 and 100 watchers each keep a local copy.",
            "Measures propagation latency (put issued -> applied) at every mirror at a fixed",
            "rate, the highest rate every mirror keeps up with (a ramp, x1.5 per step) and CPU",
            "per million applied changes, then checks that every mirror holds the last value",
            "of every key (one wrong key fails the run). Median of fresh runs, systems",
            "interleaved, Felix / peer ratios. A missing peer is skipped (install:",
            "bench/peers/install.sh). Takes about 40 minutes with every peer installed, about",
            "10 for Felix alone; --quick about 12 minutes (3 for Felix alone)."})
final class BenchWatchCommand implements Callable<Integer> {

    @Option(names = "--quick", description = "3 short runs (2 s warm-up, 3 s latency phase, 1.5 s ramp steps); a first look, not a record")
    boolean quick;

    @Option(names = "--watchers", split = ",", description = "watcher counts, one table each (default 1,10,100)")
    List<Integer> watchers;

    @Option(names = "--keys", description = "keys in the key space (default 2000)")
    Integer keys;

    @Option(names = "--runs", description = "fresh runs per system and watcher count; the median is reported (default 5; --quick 3)")
    Integer runs;

    @Option(names = "--systems", split = ",", description = "systems (default felix,etcd,nats-kv,redis; any of ${COMPLETION-CANDIDATES})",
            completionCandidates = Names.class)
    List<String> systems;

    @Option(names = "--rate", description = "updates/s of the latency phase (default 1000), at most 10,000 applied"
            + " changes/s in all: 100 watchers run it at 100 updates/s")
    Integer rate;

    @Option(names = "--results", description = "results directory (default bench/results)")
    Path results;

    @Option(names = "--set", paramLabel = "SETTING=VALUE", description = "a Felix broker setting")
    Map<String, String> settings = new HashMap<>();

    /** The system names for help text. */
    static final class Names extends ArrayList<String> {
        Names() {
            super(WatchSystems.ALL);
        }
    }

    @Override
    public Integer call() throws Exception {
        BenchCommand.quietBrokerLogs();
        WatchBenchmark.Options base = quick ? WatchBenchmark.Options.quick() : WatchBenchmark.Options.defaults();
        WatchBenchmark.Options options;
        try {
            options = base.with(systems, watchers, keys, runs, rate, results, settings);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        return WatchBenchmark.run(options, System.out, System.err).ok() ? 0 : 1;
    }
}
