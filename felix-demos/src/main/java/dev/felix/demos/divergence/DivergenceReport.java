package dev.felix.demos.divergence;

import dev.felix.demos.common.DropCounters;
import dev.felix.demos.common.Verdict;
import java.io.PrintStream;
import java.util.List;

/**
 * The final report: each mode's local copies after everything settled, what each consumer was told,
 * a comparison across modes, what it shows, and each mode's verdict (the last line says whether
 * every mode kept its promise).
 */
final class DivergenceReport {

    private static final String RULE = "=".repeat(74);
    private static final String THIN_RULE = "-".repeat(74);
    private static final int LISTED_KEYS = 6;
    private static final String KEY_INDENT = " ".repeat(20);

    private DivergenceReport() {
    }

    /** Prints the report; returns the verdicts in mode order. */
    static List<Verdict> print(PrintStream out, List<DivergenceOutcome> outcomes, DivergenceConfig config) {
        out.println();
        out.println(RULE);
        out.println("  Local state after everything settled");
        out.println(RULE);
        for (DivergenceOutcome o : outcomes) {
            printOutcome(out, o);
        }
        if (outcomes.size() >= 2) {
            out.println();
            out.println(THIN_RULE);
            out.println("  wrong keys after settling:   " + across(outcomes, o -> Long.toString(o.totalWrong())));
            out.println("  publisher during the stall:  " + across(outcomes,
                    o -> DivergencePromises.percent(o.stallRateRatio())));
            out.println("  missed events announced:     " + across(outcomes, DivergenceReport::announcedShare));
            out.println(THIN_RULE);
        }
        printExplanation(out, outcomes, config);
        List<Verdict> verdicts = outcomes.stream().map(o -> o.mode().check(o)).toList();
        out.println();
        for (Verdict v : verdicts) {
            out.println(String.format("  %-9s %s", v.name() + ":", v.kept() ? "as promised — " + v.summary()
                    : "NOT as promised — " + String.join("; ", v.problems())));
        }
        out.println();
        out.println(Verdict.lastLine(verdicts));
        out.flush();
        return verdicts;
    }

    private static void printOutcome(PrintStream out, DivergenceOutcome o) {
        out.println();
        out.println("  " + o.mode().label());
        out.println("    " + o.published() + " changes published"
                + (o.publishErrors() > 0 ? ", " + o.publishErrors() + " FAILED to publish" : ""));
        List<String> victims = o.stalledConsumers().stream().map(ConsumerOutcome::name).toList();
        out.println(String.format("    publisher achieved %.0f/s while %s %s stalled (target %d/s, %s)", o.stallRate(),
                DivergencePhase.names(victims), victims.size() == 1 ? "was" : "were", o.targetRate(),
                DivergencePromises.percent(o.stallRateRatio())));
        out.println();
        for (ConsumerOutcome c : o.consumers()) {
            String marker = c.stalled() ? "  <- stalled mid-run" : "";
            String head = String.format("    %-13s applied %8d   ", c.name(), c.applied());
            if (c.endedEarly() != null) {
                out.println(head + "SUBSCRIPTION ENDED EARLY (" + c.endedEarly() + ")" + marker);
            }
            if (c.wrong().isEmpty()) {
                out.println(head + "state CORRECT" + marker);
            } else {
                out.println(head + c.wrong().size() + " of " + o.keys() + " keys PERMANENTLY WRONG" + marker);
                for (int i = 0; i < Math.min(LISTED_KEYS, c.wrong().size()); i++) {
                    out.println(KEY_INDENT + "- " + Keyspace.name(c.wrong().get(i)));
                }
                if (c.wrong().size() > LISTED_KEYS) {
                    out.println(KEY_INDENT + "- ... and " + (c.wrong().size() - LISTED_KEYS) + " more");
                }
            }
            String told = c.watch() != null ? c.watch().describe(c.coverage()) : c.coverage().describe();
            out.println(KEY_INDENT + told);
        }
        out.println();
        if (o.brokerCounters().isEmpty()) {
            out.println("    broker counters: nothing dropped, blocked, detached or ended");
        } else {
            out.println("    broker counters:");
            for (DropCounters.Series s : o.brokerCounters()) {
                out.println(String.format("      %-56s %d", s.series(), s.value()));
            }
        }
    }

    private static String announcedShare(DivergenceOutcome o) {
        long missed = 0;
        long announced = 0;
        for (ConsumerOutcome c : o.consumers()) {
            missed += c.coverage().missed() + c.coverage().notReached();
            announced += c.coverage().announcedMissed();
        }
        return announced + "/" + missed;
    }

    private static String across(List<DivergenceOutcome> outcomes, java.util.function.Function<DivergenceOutcome, String> f) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < outcomes.size(); i++) {
            if (i > 0) {
                b.append("   vs  ");
            }
            b.append(f.apply(outcomes.get(i))).append(" under ").append(outcomes.get(i).mode().name());
        }
        return b.toString();
    }

    private static void printExplanation(PrintStream out, List<DivergenceOutcome> outcomes, DivergenceConfig config) {
        out.println();
        out.println("  What this shows");
        out.println();
        for (String line : List.of(
                "A consumer holding a local copy of state is not merely behind when an update is",
                "dropped — it is wrong, and it stays wrong until something changes that key again,",
                "which for a cold key may be never. Hot keys largely self-heal, because the next change",
                "to the same key overwrites the mistake; the damage concentrates in rarely-changed",
                "keys, which is why a uniform workload would make this look far less serious.")) {
            out.println("  " + line);
        }
        for (DivergenceOutcome o : outcomes) {
            out.println();
            for (String line : o.mode().explanation()) {
                out.println("  " + line);
            }
        }
        out.println();
        out.println("  Single-node, loopback, " + config.keys() + " keys, " + config.consumers() + " consumers.");
    }
}
