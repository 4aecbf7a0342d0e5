package dev.felix.cli;

import dev.felix.demos.divergence.StateDivergenceDemo;
import dev.felix.demos.slowconsumer.SlowConsumerDemo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * {@code felix demo ...}: the two flagship demos, each on its own in-process broker. Each demo parses
 * its own flags (upstream's, plus ours), prints its report, and exits 0 only if every mode kept its
 * promise (1 otherwise, 2 for a usage error). The flags are passed through untouched, so
 * {@code felix demo state-divergence --help} prints the demo's own usage.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = {"Demos that check their own outcome, each on its own broker.",
                "",
                "Each runs its own broker (the cluster demos: three node processes), prints a final table and, last, a RESULT line; it exits 0 only if every mode or policy kept its promise (1 if not, 2 for a usage error). Flags of each: felix demo NAME --help"},
        subcommands = {DemoCommand.StateDivergence.class, DemoCommand.SlowConsumer.class,
            DemoCommand.ClusterConsistency.class, DemoCommand.ClusterFailover.class, DemoCommand.ClusterFaults.class,
            DemoCommand.ClusterRelayLoad.class})
final class DemoCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    @Command(name = "state-divergence",
            description = {"Local copies of a keyspace while one consumer stalls.",
                "",
                "Modes lossy, lossless, durable and watch; flags: felix demo state-divergence --help."})
    static final class StateDivergence implements Callable<Integer> {
        @Unmatched
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() {
            quietBrokerLogs();
            return StateDivergenceDemo.run(args.toArray(String[]::new), System.out, System.err);
        }
    }

    @Command(name = "slow-consumer",
            description = {"One stalled subscriber under each queue policy, side by side.",
                "",
                "Policies drop_new, block and catch_up; flags: felix demo slow-consumer --help."})
    static final class SlowConsumer implements Callable<Integer> {
        @Unmatched
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() {
            quietBrokerLogs();
            return SlowConsumerDemo.run(args.toArray(String[]::new), System.out, System.err);
        }
    }

    @Command(name = "cluster-consistency",
            description = {"Leader vs quorum when replicas stop answering (3 node processes).",
                "",
                "Flags: felix demo cluster-consistency --help."})
    static final class ClusterConsistency implements Callable<Integer> {
        @Unmatched
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() {
            quietBrokerLogs();
            return dev.felix.demos.cluster.ClusterConsistencyDemo.run(args.toArray(String[]::new), System.out,
                    System.err);
        }
    }

    @Command(name = "cluster-failover",
            description = {"A quorum record outlives its killed leader; a refused one is cut.",
                "",
                "Flags: felix demo cluster-failover --help."})
    static final class ClusterFailover implements Callable<Integer> {
        @Unmatched
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() {
            quietBrokerLogs();
            return dev.felix.demos.cluster.ClusterFailoverDemo.run(args.toArray(String[]::new), System.out, System.err);
        }
    }

    @Command(name = "cluster-faults",
            description = {"Seeded kills, freezes, restarts under load; promises checked.",
                "",
                "Flags: felix demo cluster-faults --help."})
    static final class ClusterFaults implements Callable<Integer> {
        @Unmatched
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() {
            quietBrokerLogs();
            return dev.felix.demos.cluster.ClusterFaultRun.run(args.toArray(String[]::new), System.out, System.err);
        }
    }

    @Command(name = "cluster-relay-load",
            description = {"Relayed subscribers on 3 nodes, load raised until loss; all named.",
                "",
                "Flags: felix demo cluster-relay-load --help."})
    static final class ClusterRelayLoad implements Callable<Integer> {
        @Unmatched
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() {
            quietBrokerLogs();
            return dev.felix.demos.cluster.ClusterRelayLoadRun.run(args.toArray(String[]::new), System.out,
                    System.err);
        }
    }

    /**
     * The demos start and stop a broker per run; at the CLI's default log level that is a page of
     * start-up lines on stderr between the demo's own output (and through the live view). Unless
     * FELIX_LOG_LEVEL asks otherwise, only warnings are logged.
     */
    private static void quietBrokerLogs() {
        if (System.getenv("FELIX_LOG_LEVEL") == null
                && LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME) instanceof ch.qos.logback.classic.Logger root) {
            root.setLevel(ch.qos.logback.classic.Level.WARN);
        }
    }
}
