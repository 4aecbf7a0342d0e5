package dev.felix.demos.divergence;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.demos.common.Verdict;
import java.util.List;
import java.util.Map;

/**
 * One way of running the state-divergence workload: how every checkpoint is set, where changes go,
 * how consumers read them, and what the mode promises. Adding a mode is implementing this and listing
 * it in {@link DivergenceModes}.
 */
public interface DivergenceMode {

    /** The {@code --mode} value, e.g. {@code lossy}. */
    String name();

    /** The heading of its run and report section. */
    String label();

    /** Checkpoint settings, one line each, for the run heading and the docs. */
    List<String> checkpoints(DivergenceConfig config);

    /** Broker configuration keys for this mode's fresh broker. */
    Map<String, String> brokerSettings(DivergenceConfig config);

    /** Client-side checkpoints (receive queue, transport) for every client of the run. */
    ClientConfig.Builder client(ClientConfig.Builder builder, DivergenceConfig config);

    /** Creates the source (stream, cache, ...) through {@code admin}. */
    ChangeSource openSource(FelixClient admin, DivergenceConfig config);

    /** A paragraph for the report: what this mode's outcome means. */
    List<String> explanation();

    /** Whether the run kept this mode's promise. */
    Verdict check(DivergenceOutcome outcome);

    /**
     * Whether consumers are cache mirrors, told of a stall by their watch ending (the views then show
     * watch restarts instead of gap notices).
     */
    default boolean mirrors() {
        return false;
    }
}
