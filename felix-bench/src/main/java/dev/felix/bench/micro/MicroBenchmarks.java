package dev.felix.bench.micro;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;

/**
 * Runs the JMH micro-benchmarks ({@link CodecJmh}, {@link FanoutJmh},
 * {@link dev.felix.bench.storage.LogAppendJmh}) from the command line: {@code felix bench micro [JMH args]}
 * or {@code java -cp felix-bench.jar dev.felix.bench.micro.MicroBenchmarks [JMH args]}. Without iteration
 * arguments it uses short settings (1 fork, 2 x 1 s warm-up, 3 x 1 s measurement) so a hot-path change
 * can be judged in minutes; pass JMH's own flags ({@code -f -wi -i -w -r -p}) for longer runs. JSON
 * results go to {@code bench/results/micro-<timestamp>.json} unless {@code -rff} says otherwise.
 */
public final class MicroBenchmarks {

    private MicroBenchmarks() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args));
    }

    /** Runs JMH with {@code args}; returns 0 when every benchmark ran. */
    public static int run(String... args) throws Exception {
        List<String> all = new ArrayList<>();
        List<String> given = Arrays.asList(args);
        if (given.contains("-h") || given.contains("--help")) {
            new CommandLineOptions("-h").showHelp();
            return 0;
        }
        if (!given.contains("-f")) {
            all.addAll(List.of("-f", "1"));
        }
        if (!given.contains("-wi")) {
            all.addAll(List.of("-wi", "2", "-w", "1s"));
        }
        if (!given.contains("-i")) {
            all.addAll(List.of("-i", "3", "-r", "1s"));
        }
        if (!given.contains("-rff")) {
            // Results beside the other benchmarks' (JMH's JSON, with every score and its error).
            java.nio.file.Path dir = java.nio.file.Path.of("bench", "results");
            java.nio.file.Files.createDirectories(dir);
            String stamp = java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                    .withZone(java.time.ZoneOffset.UTC).format(java.time.Instant.now());
            all.addAll(List.of("-rf", "json", "-rff", dir.resolve("micro-" + stamp + ".json").toString()));
        }
        all.addAll(given);
        var results = new Runner(new CommandLineOptions(all.toArray(String[]::new))).run();
        return results.isEmpty() ? 1 : 0;
    }
}
