package dev.felix.demos.divergence;

import dev.felix.demos.common.Terminal;
import dev.felix.demos.common.UsageException;
import dev.felix.demos.common.Verdict;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code felix demo state-divergence}: consumers keep a local copy of a keyspace from a change
 * stream; one stalls, recovers, and publishing stops. Runs each mode on a fresh broker (the watch mode, with
 * {@code --nodes 3}, on a fresh cluster of three {@code felix server} processes), prints what every copy looks
 * like afterwards and what each consumer was told, and exits non-zero if a mode did not keep its promise.
 */
public final class StateDivergenceDemo {

    /** Pause between two modes' runs (upstream: 400 ms), so one broker's teardown is done. */
    private static final long BETWEEN_RUNS_MILLIS = 400;

    private StateDivergenceDemo() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the demo; returns the exit status: 0 as promised, 1 not (or a failure), 2 a usage error. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        DivergenceConfig config;
        try {
            config = DivergenceArgs.parse(args);
        } catch (UsageException e) {
            err.println("error: " + e.getMessage());
            err.println("(see --help)");
            return 2;
        }
        if (config == null) {
            out.print(DivergenceArgs.usage());
            return 0;
        }
        List<DivergenceOutcome> outcomes;
        DivergenceView view = Terminal.useLiveView(config.live(), err) ? new LiveDivergenceView(out)
                : new PlainDivergenceView(out);
        try (view) {
            outcomes = runModes(config, view);
        } catch (Exception e) {
            err.println("error: " + e.getMessage());
            return 1;
        }
        List<Verdict> verdicts = DivergenceReport.print(out, outcomes, config);
        return verdicts.stream().allMatch(Verdict::kept) ? 0 : 1;
    }

    /** Runs every configured mode in turn, each on a fresh broker (or cluster). */
    public static List<DivergenceOutcome> runModes(DivergenceConfig config, DivergenceView view) throws Exception {
        List<DivergenceOutcome> outcomes = new ArrayList<>();
        for (DivergenceMode mode : config.modes()) {
            if (!outcomes.isEmpty()) {
                TimeUnit.MILLISECONDS.sleep(BETWEEN_RUNS_MILLIS);
            }
            outcomes.add(new DivergenceRun(mode, config, view).run());
        }
        return outcomes;
    }

    /** Plain lines to {@code out}: for tests and non-terminal use. */
    public static DivergenceView plainView(PrintStream out) {
        return new PlainDivergenceView(out);
    }
}
