package dev.felix.cli;

import dev.felix.bench.latency.LatencyBenchmark;
import dev.felix.bench.storage.StorageBenchmark;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code felix bench ...}: benchmarks that print tables and write JSON under bench/results/. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Benchmarks. Each prints a table and writes JSON under bench/results/.",
        subcommands = {BenchCommand.Latency.class, BenchCommand.Storage.class})
final class BenchCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    @Command(name = "latency", mixinStandardHelpOptions = true,
            description = {"Closed-loop latency: batch 1, per-message ack, one message in flight; latency from",
                "publish to receipt at every subscriber (in-process broker on loopback, real QUIC)."})
    static final class Latency implements Callable<Integer> {
        @Option(names = "--payload", split = ",", defaultValue = "256", description = "payload sizes in bytes (default 256)")
        List<Integer> payloads;

        @Option(names = "--fanout", split = ",", defaultValue = "1,10", description = "subscriber counts (default 1,10)")
        List<Integer> fanouts;

        @Option(names = "--warmup", defaultValue = "2000", description = "unmeasured messages first (default 2000)")
        int warmup;

        @Option(names = "--count", defaultValue = "20000", description = "measured messages (default 20000)")
        int count;

        @Option(names = "--results", defaultValue = "bench/results", description = "results directory")
        Path results;

        @Override
        public Integer call() throws Exception {
            var cells = LatencyBenchmark.run(new LatencyBenchmark.Options(payloads, fanouts, warmup, count, results),
                    System.out, System.err);
            return cells.stream().allMatch(c -> c.errors() == 0) ? 0 : 1;
        }
    }

    @Command(name = "storage", description = {"Log append throughput and latency per fsync policy, writer count and",
        "batch size, beside the disk's own fsync floor; recovery speed. Options: see below."})
    static final class Storage implements Callable<Integer> {
        @picocli.CommandLine.Unmatched
        List<String> args = new java.util.ArrayList<>();

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
                throw new Errors.UsageException(e.getMessage());
            }
            StorageBenchmark.Report report = StorageBenchmark.run(options, System.out, System.err);
            return report.runs().stream().allMatch(StorageBenchmark.Run::verified) ? 0 : 1;
        }
    }
}
