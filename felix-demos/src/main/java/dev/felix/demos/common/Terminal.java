package dev.felix.demos.common;

import java.io.PrintStream;

/**
 * Whether to draw a live view, and the few ANSI sequences the views use (no TUI library: a live view
 * is a full-screen redraw on the alternate screen every tick).
 */
public final class Terminal {

    public static final String RESET = "\u001b[0m";
    public static final String BOLD = "\u001b[1m";
    public static final String RED = "\u001b[31m";
    public static final String GREEN = "\u001b[32m";
    public static final String YELLOW = "\u001b[33m";
    public static final String MAGENTA = "\u001b[35m";
    public static final String DIM = "\u001b[90m";
    public static final String BADGE = "\u001b[30;46;1m"; // black on cyan, bold

    private static final String ALT_SCREEN_ON = "\u001b[?1049h\u001b[?25l";
    private static final String ALT_SCREEN_OFF = "\u001b[?25h\u001b[?1049l";
    private static final String HOME_AND_CLEAR = "\u001b[H\u001b[2J";

    private Terminal() {
    }

    /**
     * Live view only if asked for and stdout is a terminal; otherwise plain lines, saying so on stderr
     * when the live view was asked for (so piping the demo never produces escape codes).
     */
    public static boolean useLiveView(boolean requested, PrintStream err) {
        if (!requested) {
            return false;
        }
        if (System.console() == null) {
            err.println("stdout is not a terminal; using plain output");
            return false;
        }
        return true;
    }

    /** Switches to the alternate screen; the returned hook switches back (also on Ctrl-C). */
    public static Runnable enterAlternateScreen(PrintStream out) {
        out.print(ALT_SCREEN_ON);
        out.flush();
        Thread restore = new Thread(() -> {
            out.print(ALT_SCREEN_OFF);
            out.flush();
        }, "felix-demo-terminal-restore");
        Runtime.getRuntime().addShutdownHook(restore);
        return () -> {
            try {
                Runtime.getRuntime().removeShutdownHook(restore);
            } catch (IllegalStateException shuttingDown) {
                return; // the hook runs anyway
            }
            out.print(ALT_SCREEN_OFF);
            out.flush();
        };
    }

    /** Draws {@code frame} from the top-left corner of a cleared screen. */
    public static void redraw(PrintStream out, String frame) {
        out.print(HOME_AND_CLEAR);
        out.print(frame);
        out.flush();
    }

    public static String paint(String style, String text) {
        return style + text + RESET;
    }

    /** {@code text} padded (or cut) to {@code width} columns, left aligned. */
    public static String cell(String text, int width) {
        if (text.length() >= width) {
            return text.substring(0, Math.max(0, width - 1)) + " ";
        }
        return text + " ".repeat(width - text.length());
    }
}
