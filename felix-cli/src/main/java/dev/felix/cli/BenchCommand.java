package dev.felix.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * {@code felix bench}: listed here so that {@code felix --help} shows it, but the benchmarks (with JMH and
 * the peer clients they need) are not in {@code felix.jar}: they are in {@code felix-bench.jar}, built by
 * the {@code felix-bench} module, which the {@code ./felix} launcher runs for {@code felix bench ...}.
 * This command is reached only when {@code felix.jar} is run directly; it says where the benchmarks are.
 */
@Command(name = "bench",
        description = {"Benchmarks: latency, throughput, compare, watch, storage, micro, cluster.",
            "They run from their own jar: use the ./felix launcher, which builds and runs",
            "felix-bench/target/felix-bench.jar for 'felix bench ...'."})
final class BenchCommand implements Callable<Integer> {

    /** Whatever followed {@code bench}; only echoed back in the hint. */
    @Unmatched
    List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
        String rest = args.isEmpty() ? "" : " " + String.join(" ", args);
        System.err.println("felix: the benchmarks are not in felix.jar; run './felix bench" + rest + "' (the launcher"
                + " builds felix-bench/target/felix-bench.jar), or 'java -jar felix-bench/target/felix-bench.jar bench"
                + rest + "'");
        return Errors.USAGE;
    }
}
