package dev.felix.demos.slowconsumer;

import dev.felix.demos.common.Terminal;
import dev.felix.demos.common.UsageException;
import dev.felix.demos.common.Verdict;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code felix demo slow-consumer}: one stream, N dashboards, the last one stalls for two phases.
 * Runs each policy on a fresh broker, compares publisher rate, healthy latency and losses, and exits
 * non-zero if an arm did not keep its promise.
 */
public final class SlowConsumerDemo {

    private static final long BETWEEN_RUNS_MILLIS = 400;
    /** Phase length of the warm-up run. */
    private static final long WARM_UP_PHASE_SECS = 1;

    private SlowConsumerDemo() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the demo; returns the exit status: 0 as promised, 1 not (or a failure), 2 a usage error. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        SlowConsumerConfig config;
        try {
            config = SlowConsumerArgs.parse(args);
        } catch (UsageException e) {
            err.println("error: " + e.getMessage());
            err.println("(see --help)");
            return 2;
        }
        if (config == null) {
            out.print(SlowConsumerArgs.usage());
            return 0;
        }
        List<SlowConsumerOutcome> outcomes;
        boolean live = Terminal.useLiveView(config.live(), err);
        try {
            err.println("warming up the JVM: one unmeasured " + WARM_UP_PHASE_SECS * SlowConsumerPhase.UNITS
                    + "-second run of " + config.policies().get(0).name() + " at " + config.targetRate() + "/s");
            warmUp(config);
        } catch (Exception e) {
            err.println("error: " + e.getMessage());
            return 1;
        }
        SlowConsumerView view = live ? new LiveSlowConsumerView(out) : new PlainSlowConsumerView(out);
        try (view) {
            outcomes = runPolicies(config, view);
        } catch (Exception e) {
            err.println("error: " + e.getMessage());
            return 1;
        }
        List<Verdict> verdicts = SlowConsumerReport.print(out, outcomes);
        return verdicts.stream().allMatch(Verdict::kept) ? 0 : 1;
    }

    /** Runs every configured arm in turn, each on a fresh broker. */
    public static List<SlowConsumerOutcome> runPolicies(SlowConsumerConfig config, SlowConsumerView view)
            throws Exception {
        List<SlowConsumerOutcome> outcomes = new ArrayList<>();
        for (IsolationPolicy p : config.policies()) {
            if (!outcomes.isEmpty()) {
                TimeUnit.MILLISECONDS.sleep(BETWEEN_RUNS_MILLIS);
            }
            outcomes.add(new SlowConsumerRun(p, config, view).run());
        }
        return outcomes;
    }

    /**
     * One short run of the first arm whose outcome is thrown away. Upstream needs none; a cold JVM
     * interprets, then compiles, the whole data path during the first seconds, and at 20,000/s the
     * first measured arm's healthy subscribers would shed during its baseline for that reason alone.
     */
    static void warmUp(SlowConsumerConfig config) throws Exception {
        new SlowConsumerRun(config.policies().get(0), config.withPhaseSecs(WARM_UP_PHASE_SECS), new SlowConsumerView() {
            @Override
            public void runStarted(IsolationPolicy policy, SlowConsumerConfig c) {
            }

            @Override
            public void tick(SlowConsumerTick tick) {
            }

            @Override
            public void close() {
            }
        }).run();
        TimeUnit.MILLISECONDS.sleep(BETWEEN_RUNS_MILLIS);
    }

    /** Plain lines to {@code out}: for tests and non-terminal use. */
    public static SlowConsumerView plainView(PrintStream out) {
        return new PlainSlowConsumerView(out);
    }
}
