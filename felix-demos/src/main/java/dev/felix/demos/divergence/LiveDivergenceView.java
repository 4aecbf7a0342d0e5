package dev.felix.demos.divergence;

import static dev.felix.demos.common.Terminal.cell;
import static dev.felix.demos.common.Terminal.paint;

import dev.felix.demos.common.Terminal;
import java.io.PrintStream;

/**
 * The live view: a title with the mode badge and phase, a table of the local copies against the
 * authority, and a footer with the publisher's count. Redrawn from scratch every tick on the
 * alternate screen, so the final report lands in the normal scrollback afterwards.
 */
final class LiveDivergenceView implements DivergenceView {

    private final PrintStream out;
    private Runnable restore;
    private DivergenceMode mode;
    private String where;

    LiveDivergenceView(PrintStream out) {
        this.out = out;
    }

    @Override
    public void runStarted(DivergenceMode m, DivergenceConfig config) {
        this.mode = m;
        this.where = null;
        if (restore == null) {
            restore = Terminal.enterAlternateScreen(out);
        }
    }

    @Override
    public void runsOn(String line) {
        this.where = line.strip();
    }

    @Override
    public void tick(DivergenceTick t) {
        StringBuilder f = new StringBuilder();
        f.append(paint(Terminal.BOLD, " Felix — local state divergence ")).append("\n\n");
        String phaseStyle = switch (t.phase()) {
            case STALLED -> Terminal.YELLOW + Terminal.BOLD;
            case QUIESCED -> Terminal.MAGENTA + Terminal.BOLD;
            default -> Terminal.GREEN;
        };
        f.append(' ').append(paint(Terminal.BADGE, " " + mode.name() + " ")).append("  ")
                .append(paint(phaseStyle, t.phaseLabel())).append("\n");
        f.append("  ").append(paint(Terminal.DIM, mode.label())).append("\n");
        if (where != null) {
            f.append("  ").append(paint(Terminal.DIM, where)).append("\n");
        }
        f.append('\n');
        f.append(paint(Terminal.BOLD, " local copies vs the authority")).append('\n');
        boolean mirrors = mode.mirrors();
        f.append(paint(Terminal.DIM, "  " + cell("consumer", 14) + cell("state", 10) + cell("applied", 14)
                + (mirrors ? cell("watch restarts", 16) + cell("resnapshots", 12)
                        : cell("gap notices", 16) + cell("missed", 12)) + "keys WRONG")).append('\n');
        for (DivergenceTick.Row r : t.rows()) {
            String style = r.wrong() > 0 ? Terminal.RED + Terminal.BOLD : r.stalled() ? Terminal.YELLOW : Terminal.GREEN;
            long told = mirrors ? r.watchRestarts() : r.gapNotices();
            long detail = mirrors ? r.resnapshots() : r.announcedMissed();
            f.append("  ").append(paint(style, cell(r.name(), 14) + cell(r.stalled() ? "STALLED" : "applying", 10)
                    + cell(Long.toString(r.applied()), 14) + cell(Long.toString(told), 16)
                    + cell(Long.toString(detail), 12) + r.wrong() + " / " + t.keys())).append('\n');
        }
        f.append('\n');
        f.append("  authority: ").append(t.published()).append(" changes published across ").append(t.keys())
                .append(" keys\n");
        f.append(paint(Terminal.DIM, (mirrors
                ? "  a mirror that falls behind has its watch ended and re-watches: it converges"
                : "  every change a consumer misses is announced to it with a gap notice")
                + "    Ctrl-C quits")).append('\n');
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
