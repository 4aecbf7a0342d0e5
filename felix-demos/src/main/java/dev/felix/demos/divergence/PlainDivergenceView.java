package dev.felix.demos.divergence;

import java.io.PrintStream;

/**
 * Upstream's plain output: a heading per run, a line when the phase changes, and every tick one line
 * of wrong-key counts. Gap notices received so far (or a mirror's watch restarts) are appended, since
 * here a consumer is told.
 */
final class PlainDivergenceView implements DivergenceView {

    private final PrintStream out;
    private DivergencePhase shown;

    PlainDivergenceView(PrintStream out) {
        this.out = out;
    }

    @Override
    public void runStarted(DivergenceMode mode, DivergenceConfig config) {
        shown = null;
        out.println();
        out.println("=== " + mode.label() + " ===");
        for (String line : mode.checkpoints(config)) {
            out.println("    " + line);
        }
    }

    @Override
    public void runsOn(String where) {
        out.println("    " + where);
    }

    @Override
    public void tick(DivergenceTick t) {
        if (t.phase() != shown) {
            shown = t.phase();
            out.println();
            out.println("-- " + t.phaseLabel() + " --");
        }
        StringBuilder line = new StringBuilder();
        StringBuilder gaps = new StringBuilder();
        StringBuilder restarts = new StringBuilder();
        for (DivergenceTick.Row r : t.rows()) {
            line.append("  ").append(r.name()).append(r.stalled() ? "(STALLED)" : "").append('=').append(r.wrong())
                    .append(" wrong");
            if (r.gapNotices() > 0) {
                gaps.append(' ').append(r.name()).append('=').append(r.gapNotices()).append('/')
                        .append(r.announcedMissed());
            }
            if (r.watchRestarts() > 0) {
                restarts.append(' ').append(r.name()).append('=').append(r.watchRestarts()).append('/')
                        .append(r.resnapshots());
            }
        }
        line.append("  | published=").append(t.published());
        if (gaps.length() > 0) {
            line.append("  | gap notices/missed:").append(gaps);
        }
        if (restarts.length() > 0) {
            line.append("  | watch restarts/fresh snapshots:").append(restarts);
        }
        out.println(line);
        out.flush();
    }

    @Override
    public void close() {
        out.flush();
    }
}
