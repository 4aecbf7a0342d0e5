package dev.felix.demos.slowconsumer;

import java.io.PrintStream;

/** Upstream's plain output: a heading per arm, a line per phase change, and a line per tick. */
final class PlainSlowConsumerView implements SlowConsumerView {

    private final PrintStream out;
    private SlowConsumerPhase shown;

    PlainSlowConsumerView(PrintStream out) {
        this.out = out;
    }

    @Override
    public void runStarted(IsolationPolicy policy, SlowConsumerConfig config) {
        shown = null;
        out.println();
        out.println("=== policy = " + policy.name() + "  (" + policy.tradeoff() + ") ===");
        for (String line : policy.checkpoints(config)) {
            out.println("    " + line);
        }
    }

    @Override
    public void tick(SlowConsumerTick t) {
        if (t.phase() != shown) {
            shown = t.phase();
            out.println();
            out.println("-- " + t.phaseLabel() + " --");
        }
        StringBuilder line = new StringBuilder("  ");
        for (SlowConsumerTick.Row r : t.rows()) {
            line.append(r.name()).append(r.stalled() ? "(STALLED)" : "").append('=').append(r.received()).append('/')
                    .append(r.lost()).append(" lost  ");
        }
        line.append("| published=").append(t.published()).append("  rate=").append(t.currentRate()).append("/s");
        out.println(line);
        out.flush();
    }

    @Override
    public void close() {
        out.flush();
    }
}
