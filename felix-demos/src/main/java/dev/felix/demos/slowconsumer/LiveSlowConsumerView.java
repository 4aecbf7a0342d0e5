package dev.felix.demos.slowconsumer;

import static dev.felix.demos.common.Terminal.cell;
import static dev.felix.demos.common.Terminal.paint;

import dev.felix.demos.common.Terminal;
import java.io.PrintStream;

/**
 * The live view: title with the policy badge and phase, a table of subscribers, and a gauge of the
 * publisher's current rate against its target (the last 500 ms, so a throttled publisher visibly
 * drops, unlike upstream's cumulative gauge).
 */
final class LiveSlowConsumerView implements SlowConsumerView {

    private static final int GAUGE_WIDTH = 40;

    private final PrintStream out;
    private Runnable restore;
    private IsolationPolicy policy;

    LiveSlowConsumerView(PrintStream out) {
        this.out = out;
    }

    @Override
    public void runStarted(IsolationPolicy p, SlowConsumerConfig config) {
        this.policy = p;
        if (restore == null) {
            restore = Terminal.enterAlternateScreen(out);
        }
    }

    @Override
    public void tick(SlowConsumerTick t) {
        StringBuilder f = new StringBuilder();
        f.append(paint(Terminal.BOLD, " Felix — slow-consumer isolation ")).append("\n\n");
        String phaseStyle = t.phase() == SlowConsumerPhase.DEGRADED ? Terminal.YELLOW + Terminal.BOLD : Terminal.GREEN;
        f.append(' ').append(paint(Terminal.BADGE, " policy = " + policy.name() + " ")).append("  ")
                .append(paint(phaseStyle, t.phaseLabel())).append("\n\n");
        f.append(paint(Terminal.BOLD, " consumers")).append('\n');
        f.append(paint(Terminal.DIM, "  " + cell("consumer", 12) + cell("state", 10) + cell("received", 14)
                + cell("lost", 14) + "gap notices")).append('\n');
        for (SlowConsumerTick.Row r : t.rows()) {
            String style = r.stalled() ? Terminal.RED + Terminal.BOLD : r.lost() > 0 ? Terminal.YELLOW : Terminal.GREEN;
            f.append("  ").append(paint(style, cell(r.name(), 12) + cell(r.stalled() ? "STALLED" : "draining", 10)
                    + cell(Long.toString(r.received()), 14) + cell(Long.toString(r.lost()), 14) + r.gapNotices()))
                    .append('\n');
        }
        double ratio = Math.max(0, Math.min(1, (double) t.currentRate() / t.targetRate()));
        int filled = (int) Math.round(ratio * GAUGE_WIDTH);
        f.append('\n').append(" publisher — ").append(t.published()).append(" published, ").append(t.currentRate())
                .append("/s now, target ").append(t.targetRate()).append("/s\n");
        f.append("  ").append(paint(ratio > 0.5 ? Terminal.GREEN : Terminal.RED,
                "█".repeat(filled) + "░".repeat(GAUGE_WIDTH - filled))).append(String.format(" %3d%%%n",
                Math.round(ratio * 100)));
        f.append(paint(Terminal.DIM, "  " + policy.tradeoff() + "    Ctrl-C quits")).append('\n');
        Terminal.redraw(out, f.toString());
    }

    @Override
    public void close() {
        if (restore != null) {
            restore.run();
            restore = null;
        }
    }
}
