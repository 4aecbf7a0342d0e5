package dev.felix.bench.common;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The progress of one benchmark command, made of a known number of steps (runs), on stderr.
 *
 * <p>On a terminal it is <em>one</em> line, redrawn in place at most ten times a second: a bar for the whole
 * command, the current step and its label, time elapsed and a rough time left. When stderr is not a terminal
 * (piped, redirected, CI) it prints a line at each tenth of the whole command and one at the end, so a
 * 41-run {@code felix bench latency} leaves about a dozen lines, not one per run and percent. Messages (a
 * peer skipped, a run failed, a result line per run) get lines of their own in both modes; details (what a
 * run is doing right now) only appear on a terminal's live line.
 *
 * <p>Thread-safe: a step's {@link Progress} may be updated from the thread that drives the run while the
 * command's thread prints messages; every method takes this object's monitor.
 */
public final class ProgressLine {

    /** Redraws of the live line are at least this far apart. */
    private static final long REDRAW_NANOS = 100_000_000L;
    /** The live line is cut to this many characters, so it never wraps (a wrapped line cannot be redrawn). */
    static final int WIDTH = 79;
    /** Width of the bar, in characters. */
    private static final int BAR = 20;

    private final PrintStream out;
    private final String title;
    private final int steps;
    private final String unit;
    private final boolean tty;
    private final LongSupplier clock;
    private final long start;
    private int started;
    private String label = "";
    private String detail = "";
    private double stepFraction;
    /** The current step; updates of an earlier one (a straggling thread) are ignored. */
    private Progress current;
    private int lastTenth;
    private long lastDraw = Long.MIN_VALUE;
    private boolean drawn;
    private boolean finished;

    /**
     * @param title what runs, e.g. {@code latency}; starts every line
     * @param steps how many steps the command will run in all (at least 1)
     * @param unit  what a step is called in the piped lines, plural (e.g. {@code runs})
     */
    public ProgressLine(PrintStream out, String title, int steps, String unit) {
        this(out, title, steps, unit, System.console() != null, System::nanoTime);
    }

    /** As above, saying whether {@code out} is a terminal and which clock to read (for tests). */
    ProgressLine(PrintStream out, String title, int steps, String unit, boolean tty, LongSupplier clock) {
        this.out = out;
        this.title = title;
        this.steps = Math.max(1, steps);
        this.unit = unit;
        this.tty = tty;
        this.clock = clock;
        this.start = clock.getAsLong();
    }

    /** Starts the next step, of {@code total} units of work; its {@link Progress} moves this line. */
    public synchronized Progress step(String stepLabel, long total) {
        started = Math.min(steps, started + 1);
        label = stepLabel;
        detail = "";
        stepFraction = 0;
        current = new Progress(this, total);
        return current;
    }

    /** A line of its own, in both modes (on a terminal the live line is cleared first and redrawn after). */
    public synchronized void message(String text) {
        if (tty && drawn) {
            out.print("\r\033[K");
        }
        out.println(text);
        drawn = false;
        if (tty && !finished) {
            draw(true);
        }
        out.flush();
    }

    /** What the current step is doing; shown on a terminal's live line only. */
    public synchronized void detail(String text) {
        detail = text == null ? "" : text.strip();
        if (tty) {
            draw(false);
        }
    }

    /** The last line: the command is done. Further calls print nothing but messages. */
    public synchronized void finish() {
        if (finished) {
            return;
        }
        finished = true;
        String done = String.format(Locale.ROOT, "%s: done, %d %s in %s", title, started, unit, clock(elapsed()));
        if (tty && drawn) {
            out.print("\r\033[K");
        }
        out.println(done);
        drawn = false;
        out.flush();
    }

    /** The share of the whole command done, 0..1. */
    synchronized double fraction() {
        return Math.min(1, (Math.max(0, started - 1) + stepFraction) / steps);
    }

    synchronized void update(Progress step, long done, long total) {
        if (finished || step != current) {
            return;
        }
        stepFraction = Math.min(1, Math.max(0, done / (double) total));
        if (tty) {
            draw(stepFraction >= 1); // a finished step is always shown
            return;
        }
        int tenth = (int) Math.floor(fraction() * 10 + 1e-9);
        if (tenth > lastTenth && tenth < 10) { // 100% is the finish line's
            lastTenth = tenth;
            out.println(String.format(Locale.ROOT, "%s: %d%% (%d of %d %s, %s elapsed%s)", title, tenth * 10,
                    Math.max(0, started - 1) + (stepFraction >= 1 ? 1 : 0), steps, unit, clock(elapsed()), left()));
            out.flush();
        }
    }

    private void draw(boolean force) {
        long now = clock.getAsLong();
        if (!force && drawn && now - lastDraw < REDRAW_NANOS) {
            return;
        }
        lastDraw = now;
        double f = fraction();
        int filled = (int) Math.round(f * BAR);
        StringBuilder line = new StringBuilder();
        line.append(title).append(" [").append("#".repeat(filled)).append(" ".repeat(BAR - filled)).append("] ")
                .append(String.format(Locale.ROOT, "%3d%%", (int) Math.floor(f * 100))).append(' ')
                .append(clock(elapsed())).append(left()).append("  ").append(started).append('/').append(steps)
                .append(' ').append(label);
        if (!detail.isEmpty()) {
            line.append(": ").append(detail);
        }
        String text = line.length() > WIDTH ? line.substring(0, WIDTH - 1) + "…" : line.toString();
        out.print("\r" + text + "\033[K");
        out.flush();
        drawn = true;
    }

    private long elapsed() {
        return clock.getAsLong() - start;
    }

    /** ", about 4:10 left" once a little of the work is done, else nothing. */
    private String left() {
        double f = fraction();
        if (f < 0.02 || f >= 1) {
            return "";
        }
        return ", ~" + clock((long) (elapsed() / f * (1 - f))) + " left";
    }

    /** m:ss, or h:mm:ss from an hour. */
    static String clock(long nanos) {
        long s = Math.max(0, nanos) / 1_000_000_000L;
        return s >= 3600 ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
                : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }
}
