package dev.felix.demos.slowconsumer;

import dev.felix.demos.common.DropCounters;
import dev.felix.demos.common.Durations;
import dev.felix.demos.common.Verdict;
import java.io.PrintStream;
import java.util.List;
import java.util.function.Function;

/**
 * The comparison printed after every arm ran: per arm the publisher's rates, each subscriber's
 * losses and what it was told, the healthy subscribers' latency, the broker's counters; then what
 * changed between arms, what it means, and each arm's verdict (the last line says whether every arm
 * kept its promise).
 */
final class SlowConsumerReport {

    private static final String RULE = "=".repeat(72);
    private static final String THIN_RULE = "-".repeat(72);
    private static final String INDENT = " ".repeat(19);

    private SlowConsumerReport() {
    }

    static List<Verdict> print(PrintStream out, List<SlowConsumerOutcome> outcomes) {
        out.println();
        out.println(RULE);
        out.println("  Slow-consumer isolation — one consumer stalled, same workload");
        out.println(RULE);
        for (SlowConsumerOutcome o : outcomes) {
            printOutcome(out, o);
        }
        if (outcomes.size() >= 2) {
            out.println();
            out.println(THIN_RULE);
            out.println("  What changed between the runs:");
            out.println("    healthy consumers lost   " + across(outcomes, o -> o.healthyLost()));
            out.println("    stalled consumer lost    " + across(outcomes, o -> o.stalledLost()));
            out.println("    publisher achieved       " + across(outcomes, o -> o.achievedRate()));
            out.println("    publisher while stalled  " + across(outcomes, o -> o.degradedRate()));
            out.println("    healthy p99              " + acrossText(outcomes, o -> o.healthyP99PublishedDegraded() == null
                    ? "none" : Durations.micros(o.healthyP99PublishedDegraded())));
            out.println(THIN_RULE);
        }
        out.println();
        for (String line : List.of(
                "drop_new keeps one sick consumer from affecting anyone else, and that consumer",
                "loses events — but it is told exactly which, with gap notices, so it can resync.",
                "block loses nothing, and lets one sick consumer throttle the publisher and",
                "therefore every other consumer on the stream.",
                "",
                "catch_up on a durable stream removes the trade-off: the stalled consumer is",
                "detached from live delivery when its queue fills and is fed from the log when it",
                "reads again. Nothing is lost and nobody else slows down; the price is a log on disk",
                "and a consumer that is behind until it has caught up.")) {
            out.println(line.isEmpty() ? "" : "  " + line);
        }
        out.println();
        out.println("  Measured single-node over loopback at fanout " + outcomes.get(0).subscribers().size()
                + ". These numbers say nothing");
        out.println("  about behaviour at thousands of subscribers or across a real network.");
        out.println("  Loss is never silent: every event a subscriber misses is named to it by a gap notice.");
        List<Verdict> verdicts = outcomes.stream().map(o -> o.policy().check(o)).toList();
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

    private static void printOutcome(PrintStream out, SlowConsumerOutcome o) {
        out.println();
        out.println("  policy = " + o.policy().name());
        out.println(String.format("    publisher      %10d msg/s achieved   (target %d/s)", o.achievedRate(),
                o.targetRate()));
        out.println(String.format("    publisher      %10d msg/s while stalled, %d msg/s before (%d%%)",
                o.degradedRate(), o.baselineRate(), Math.round(o.degradedToBaseline() * 100)));
        out.println(String.format("    publisher      %10d ms behind its schedule during the stall (writes held back"
                + " by flow control)", o.stallWaitMillis()));
        for (DashboardOutcome d : o.subscribers()) {
            out.println(String.format("    %-14s %10d received  %10d lost%s", d.name(), d.received(), d.lost(),
                    d.stalled() ? "   <- stalled" : ""));
            if (d.endedEarly() != null) {
                out.println(INDENT + "SUBSCRIPTION ENDED EARLY (" + d.endedEarly() + ")");
            }
            out.println(INDENT + d.coverage().describe());
        }
        if (o.healthyP99Baseline() != null) {
            out.println(String.format("    healthy p99    %10s  before the stall", Durations.micros(o.healthyP99Baseline())));
        }
        if (o.healthyP99Degraded() != null) {
            out.println(String.format("    healthy p99    %10s  while the other consumer was stalled",
                    Durations.micros(o.healthyP99Degraded())));
        }
        if (o.healthyP99PublishedDegraded() != null) {
            out.println(String.format("    healthy p99    %10s  over messages published during the stall "
                    + "(however late they arrived)", Durations.micros(o.healthyP99PublishedDegraded())));
        }
        out.println();
        out.println("  broker drop counters after " + o.policy().name() + ":");
        if (o.brokerDrops().isEmpty()) {
            out.println("    (none above zero)");
        }
        for (DropCounters.Series s : o.brokerDrops()) {
            out.println(String.format("    %-48s %d", s.series(), s.value()));
        }
        long clientDropped = o.subscribers().stream().mapToLong(DashboardOutcome::locallyDropped).sum();
        if (clientDropped > 0) {
            out.println(String.format("    %-48s %d", "client_receive_queue dropped (SDK, all subscribers)",
                    clientDropped));
        }
        for (DropCounters.Series s : o.brokerFlow()) {
            out.println(String.format("    %-48s %d", s.series(), s.value()));
        }
    }

    private static String acrossText(List<SlowConsumerOutcome> outcomes, Function<SlowConsumerOutcome, String> f) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < outcomes.size(); i++) {
            if (i > 0) {
                b.append("   vs ");
            }
            b.append(String.format("%8s under %s", f.apply(outcomes.get(i)), outcomes.get(i).policy().name()));
        }
        return b.toString();
    }

    private static String across(List<SlowConsumerOutcome> outcomes, Function<SlowConsumerOutcome, Long> f) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < outcomes.size(); i++) {
            if (i > 0) {
                b.append("   vs ");
            }
            b.append(String.format("%8d under %s", f.apply(outcomes.get(i)), outcomes.get(i).policy().name()));
        }
        return b.toString();
    }
}
