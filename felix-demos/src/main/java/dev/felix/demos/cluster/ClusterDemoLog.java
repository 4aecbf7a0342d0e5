package dev.felix.demos.cluster;

import dev.felix.demos.common.Terminal;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * What a cluster demo tells the person watching: each step as it happens, each check as it passes or fails,
 * and (on a terminal) a live view that redraws the nodes' states above the latest steps. Piped, it prints
 * plain lines and no escape codes.
 *
 * <p>Not thread-safe: the demo's thread writes to it.
 */
final class ClusterDemoLog implements AutoCloseable {

    private static final int LIVE_LINES = 18;

    private final PrintStream out;
    private final boolean live;
    private final String title;
    private final long started = System.nanoTime();
    private final List<String> lines = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();
    private Supplier<List<NodeProcess>> nodes = List::of;
    private Runnable restore = () -> {
    };

    ClusterDemoLog(PrintStream out, boolean live, String title) {
        this.out = out;
        this.live = live;
        this.title = title;
        if (live) {
            restore = Terminal.enterAlternateScreen(out);
        } else {
            out.println(title);
        }
    }

    /** The nodes the live view shows. */
    void watch(Supplier<List<NodeProcess>> source) {
        this.nodes = source;
        redraw();
    }

    /** Something the demo does now. */
    void step(String text) {
        add(String.format("[%6.1fs] %s", seconds(), text));
    }

    /** A check that held. */
    void ok(String text) {
        add(String.format("[%6.1fs]   ok   %s", seconds(), text));
    }

    /** A check that did not hold: the demo's verdict fails. */
    void fail(String text) {
        problems.add(text);
        add(String.format("[%6.1fs]   FAIL %s", seconds(), text));
    }

    /** Checks {@code condition}; says {@code text} either way. */
    boolean check(boolean condition, String text) {
        if (condition) {
            ok(text);
        } else {
            fail(text);
        }
        return condition;
    }

    List<String> problems() {
        return List.copyOf(problems);
    }

    double seconds() {
        return (System.nanoTime() - started) / 1e9;
    }

    private void add(String line) {
        lines.add(line);
        if (live) {
            redraw();
        } else {
            out.println(line);
            out.flush();
        }
    }

    private void redraw() {
        if (!live) {
            return;
        }
        StringBuilder b = new StringBuilder();
        b.append(Terminal.paint(Terminal.BADGE, " " + title + " ")).append("\n\n");
        for (NodeProcess n : nodes.get()) {
            String state = !n.alive() ? Terminal.paint(Terminal.RED, "killed") : n.frozen()
                    ? Terminal.paint(Terminal.YELLOW, "frozen (SIGSTOP)") : Terminal.paint(Terminal.GREEN, "running");
            b.append("  ").append(Terminal.cell(n.id, 6)).append(state).append("\n");
        }
        b.append("\n");
        for (String line : lines.subList(Math.max(0, lines.size() - LIVE_LINES), lines.size())) {
            b.append(line.contains("FAIL") ? Terminal.paint(Terminal.RED, line) : line).append("\n");
        }
        Terminal.redraw(out, b.toString());
    }

    /** Leaves the live view and prints everything that happened (the screen was only ever a view of it). */
    @Override
    public void close() {
        if (live) {
            restore.run();
            out.println(title);
            for (String line : lines) {
                out.println(line);
            }
        }
        out.flush();
    }
}
