package dev.felix.bench.common;

import java.io.PrintStream;

/**
 * A progress line on stderr: a bar redrawn in place when stderr is a terminal, otherwise a plain line
 * every 10%.
 */
public final class Progress {

    private final PrintStream out;
    private final String label;
    private final long total;
    private final boolean tty = System.console() != null;
    private int lastDecile = -1;
    private long lastDraw;

    public Progress(PrintStream out, String label, long total) {
        this.out = out;
        this.label = label;
        this.total = Math.max(1, total);
    }

    public void update(long done) {
        int percent = (int) Math.min(100, done * 100 / total);
        if (tty) {
            long now = System.nanoTime();
            if (now - lastDraw < 100_000_000L && done < total) {
                return;
            }
            lastDraw = now;
            int width = 30;
            int filled = percent * width / 100;
            out.print("\r" + label + " [" + "#".repeat(filled) + " ".repeat(width - filled) + "] " + percent + "%");
            if (done >= total) {
                out.println();
            }
            out.flush();
        } else if (percent / 10 > lastDecile) {
            lastDecile = percent / 10;
            out.println(label + " " + percent + "%");
        }
    }
}
