package dev.felix.demos.divergence;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.demos.common.DemoBroker;
import java.util.function.UnaryOperator;

/** A fresh in-process broker with the mode's settings: what every mode has always run on. */
final class SingleBrokerTarget implements DivergenceTarget {

    private final DemoBroker broker;

    private SingleBrokerTarget(DemoBroker broker) {
        this.broker = broker;
    }

    static SingleBrokerTarget start(DivergenceMode mode, DivergenceConfig config) throws Exception {
        return new SingleBrokerTarget(DemoBroker.start(mode.brokerSettings(config)));
    }

    @Override
    public FelixClient connectAdmin(UnaryOperator<ClientConfig.Builder> customize) {
        return broker.connect(customize);
    }

    @Override
    public FelixClient home(FelixClient admin, UnaryOperator<ClientConfig.Builder> customize) {
        return admin; // the publisher writes on the client that created the source, as it always has
    }

    @Override
    public FelixClient connect(UnaryOperator<ClientConfig.Builder> customize) {
        return broker.connect(customize);
    }

    @Override
    public String scrape() {
        return broker.scrape();
    }

    @Override
    public String describe() {
        return null;
    }

    @Override
    public void close() {
        broker.close();
    }
}
