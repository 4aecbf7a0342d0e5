package dev.felix.demos.divergence;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import java.util.function.UnaryOperator;

/**
 * Where one mode's run finds its broker: a fresh in-process broker ({@link SingleBrokerTarget}), or a cluster of
 * {@code felix server} processes ({@link ClusterTarget}). The run is the same on either; only where its clients
 * connect and whose metrics it reads differ.
 *
 * <p>Driven by the run's thread: {@link #connectAdmin}, then (once the mode created its source) {@link #home},
 * then {@link #connect} for every consumer, {@link #scrape} at the end and {@link #close}. {@link #connect} may
 * be called from several threads at once (the consumers subscribe concurrently).
 */
interface DivergenceTarget extends AutoCloseable {

    /** Opens the target for {@code mode} (a fresh broker, or a cluster whose nodes serve). */
    static DivergenceTarget open(DivergenceMode mode, DivergenceConfig config) throws Exception {
        if (!config.clustered()) {
            return SingleBrokerTarget.start(mode, config);
        }
        if (!mode.brokerSettings(config).isEmpty()) {
            // Only the watch mode runs on a cluster, and it sets nothing: a mode that did would be run wrongly.
            throw new IllegalStateException("mode " + mode.name() + " sets broker settings a cluster's nodes do not"
                    + " take: " + mode.brokerSettings(config).keySet());
        }
        return ClusterTarget.start(config.nodes());
    }

    /** A client for creating the mode's source: any node. */
    FelixClient connectAdmin(UnaryOperator<ClientConfig.Builder> customize);

    /**
     * Once the source exists: the client its changes are written through, on the node that serves it. A single
     * broker serves everything, so there it is {@code admin} itself; a cluster finds the source's leader.
     */
    FelixClient home(FelixClient admin, UnaryOperator<ClientConfig.Builder> customize) throws Exception;

    /** A consumer's client, on the node that serves the source (valid after {@link #home}). */
    FelixClient connect(UnaryOperator<ClientConfig.Builder> customize);

    /** The Prometheus text of the node that served the source. */
    String scrape();

    /** One line for the run's heading: where it runs, or null for the single broker every mode has had. */
    String describe();

    @Override
    void close();
}
