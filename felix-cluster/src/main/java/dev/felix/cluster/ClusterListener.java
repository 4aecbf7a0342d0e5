package dev.felix.cluster;

/**
 * Told after each change of cluster metadata was applied locally. Called on one metadata thread, in
 * commit order; must be quick and must not block (post work elsewhere).
 */
@FunctionalInterface
public interface ClusterListener {
    /** Metadata changed; {@code view} now shows state as of {@code version}. */
    void changed(ClusterView view, long version);
}
