package dev.felix.demos.divergence;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.client.ReceivePolicy;
import dev.felix.client.StreamSpec;
import dev.felix.demos.common.Verdict;
import dev.felix.transport.TransportConfig;
import dev.felix.wire.QueuePolicy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A mode whose change source is a one-shard stream: it differs from the others only in the stream's
 * kind and the policy at each checkpoint.
 */
final class StreamMode implements DivergenceMode {

    private final String name;
    private final String label;
    private final boolean durable;
    private final QueuePolicy subscriberPolicy;
    private final ReceivePolicy receivePolicy;
    private final String ingressPolicy;
    private final Function<DivergenceOutcome, Verdict> promise;
    private final List<String> explanation;

    StreamMode(String name, String label, boolean durable, QueuePolicy subscriberPolicy, ReceivePolicy receivePolicy,
            String ingressPolicy, Function<DivergenceOutcome, Verdict> promise, List<String> explanation) {
        this.name = name;
        this.label = label;
        this.durable = durable;
        this.subscriberPolicy = subscriberPolicy;
        this.receivePolicy = receivePolicy;
        this.ingressPolicy = ingressPolicy;
        this.promise = promise;
        this.explanation = List.copyOf(explanation);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public List<String> checkpoints(DivergenceConfig c) {
        return List.of(
                "stream                " + (durable ? "durable, fsync periodic" : "ephemeral") + ", 1 shard",
                "broker ingress        " + ingressPolicy + ", " + (c.streamWindowBytes() >> 10)
                        + " KiB stream window",
                "writer queue          " + DivergenceConfig.WRITER_QUEUE_EVENTS + " events (full: the ingress policy applies)",
                "subscriber queue      " + subscriberPolicy.wireName() + ", " + c.queueCapacity() + " events",
                "client receive queue  " + receivePolicy.name().toLowerCase(java.util.Locale.ROOT) + ", "
                        + DivergenceConfig.CLIENT_QUEUE_EVENTS + " events",
                "client stream window  " + (c.streamWindowBytes() >> 10) + " KiB");
    }

    @Override
    public Map<String, String> brokerSettings(DivergenceConfig c) {
        Map<String, String> s = new LinkedHashMap<>();
        if (!durable) {
            s.put("subscriber_queue_policy", subscriberPolicy.wireName()); // the ephemeral default
        }
        s.put("subscriber_queue_events", Integer.toString(c.queueCapacity()));
        s.put("ingress_policy", ingressPolicy);
        s.put("writer_queue_events", Integer.toString(DivergenceConfig.WRITER_QUEUE_EVENTS));
        s.put("stream_window_bytes", Long.toString(c.streamWindowBytes()));
        return s;
    }

    @Override
    public ClientConfig.Builder client(ClientConfig.Builder b, DivergenceConfig c) {
        return b.receiveQueue(DivergenceConfig.CLIENT_QUEUE_EVENTS, 16L << 20, receivePolicy)
                .transport(TransportConfig.defaults().withStreamWindowBytes(c.streamWindowBytes()));
    }

    @Override
    public ChangeSource openSource(FelixClient admin, DivergenceConfig c) {
        StreamSpec spec = durable ? StreamSpec.durable(1, "periodic") : StreamSpec.ephemeral(1);
        // The policy is also asked for per subscription, so the mode holds whatever the broker default is.
        return StreamSource.create(admin, spec, subscriberPolicy, c.queueCapacity());
    }

    @Override
    public List<String> explanation() {
        return explanation;
    }

    @Override
    public Verdict check(DivergenceOutcome outcome) {
        return promise.apply(outcome);
    }

    @Override
    public String toString() {
        return name;
    }
}
