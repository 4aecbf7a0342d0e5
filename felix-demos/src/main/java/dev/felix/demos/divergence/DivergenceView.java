package dev.felix.demos.divergence;

/** Shows a run while it happens: plain lines, or a live terminal view. */
public interface DivergenceView extends AutoCloseable {

    void runStarted(DivergenceMode mode, DivergenceConfig config);

    /** Where the run that just started runs, when not on the one in-process broker (one line). */
    default void runsOn(String where) {
    }

    void tick(DivergenceTick tick);

    /** Leaves the screen as it was (the live view's alternate screen). */
    @Override
    void close();
}
