package dev.felix.bench.common;

import java.io.PrintStream;

/**
 * One step of a {@link ProgressLine}: a run reports how much of its work is done, and the command's single
 * progress line moves. Thread-safe (it forwards to the line, which is).
 */
public final class Progress {

    private final ProgressLine line;
    private final long total;

    Progress(ProgressLine line, long total) {
        this.line = line;
        this.total = Math.max(1, total);
    }

    /** A step on a line of its own, of {@code total} units: for a single run outside a command (tests). */
    public static Progress single(PrintStream out, String label, long total) {
        return new ProgressLine(out, label, 1, "steps").step(label, total);
    }

    /** {@code done} of the step's {@code total} units are done. */
    public void update(long done) {
        line.update(this, done, total);
    }
}
