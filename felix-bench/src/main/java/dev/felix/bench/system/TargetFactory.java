package dev.felix.bench.system;

/**
 * Starts fresh instances of one system, one per benchmark run, so no run inherits another's state
 * (caches, queues, JIT-warm connections on the broker side, files).
 */
public interface TargetFactory {

    /** The system's name, as accepted by {@link Targets#byNames}. */
    String name();

    /**
     * Null when the system can run here; otherwise why not, e.g. {@code "nats-server not installed (run
     * bench/peers/install.sh)"}. The harness then skips the system and says so; it never starts it.
     */
    String unavailable();

    /** Starts a new instance (broker process or in-process broker, empty data). */
    Target start() throws Exception;
}
