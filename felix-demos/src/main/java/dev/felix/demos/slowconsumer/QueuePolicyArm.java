package dev.felix.demos.slowconsumer;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.client.ReceivePolicy;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.demos.common.Verdict;
import dev.felix.transport.TransportConfig;
import dev.felix.wire.QueuePolicy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * An arm that differs from the others only in the stream's kind and the subscriber-side policies.
 * Broker ingress blocks in every arm, so ingress shedding can never be mistaken for the coupling
 * (or isolation) between consumers that the demo measures.
 */
final class QueuePolicyArm implements IsolationPolicy {

    private final String name;
    private final String tradeoff;
    private final boolean durable;
    private final QueuePolicy subscriberPolicy;
    private final ReceivePolicy receivePolicy;
    private final Function<SlowConsumerOutcome, Verdict> promise;

    QueuePolicyArm(String name, String tradeoff, boolean durable, QueuePolicy subscriberPolicy,
            ReceivePolicy receivePolicy, Function<SlowConsumerOutcome, Verdict> promise) {
        this.name = name;
        this.tradeoff = tradeoff;
        this.durable = durable;
        this.subscriberPolicy = subscriberPolicy;
        this.receivePolicy = receivePolicy;
        this.promise = promise;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String tradeoff() {
        return tradeoff;
    }

    @Override
    public List<String> checkpoints(SlowConsumerConfig c) {
        return List.of(
                "stream                " + (durable ? "durable, fsync periodic" : "ephemeral") + ", 1 shard",
                "broker ingress        block",
                "subscriber queue      " + subscriberPolicy.wireName() + ", " + c.queueCapacity() + " events",
                "client receive queue  " + receivePolicy.name().toLowerCase(Locale.ROOT) + ", " + c.queueCapacity()
                        + " events",
                "client stream window  " + (SlowConsumerConfig.STREAM_WINDOW_BYTES >> 10) + " KiB");
    }

    @Override
    public Map<String, String> brokerSettings(SlowConsumerConfig c) {
        Map<String, String> s = new LinkedHashMap<>();
        if (!durable) {
            s.put("subscriber_queue_policy", subscriberPolicy.wireName());
        }
        s.put("subscriber_queue_events", Integer.toString(c.queueCapacity()));
        s.put("ingress_policy", "block");
        return s;
    }

    @Override
    public ClientConfig.Builder client(ClientConfig.Builder b, SlowConsumerConfig c) {
        return b.receiveQueue(c.queueCapacity(), 16L << 20, receivePolicy)
                .transport(TransportConfig.defaults().withStreamWindowBytes(SlowConsumerConfig.STREAM_WINDOW_BYTES));
    }

    @Override
    public void createStream(FelixClient admin, StreamRef stream) {
        admin.streams().create(stream, durable ? StreamSpec.durable(1, "periodic") : StreamSpec.ephemeral(1));
    }

    @Override
    public SubscribeOptions subscribeOptions(StreamRef stream, SlowConsumerConfig c) {
        return SubscribeOptions.of(stream).withQueue(subscriberPolicy, c.queueCapacity());
    }

    @Override
    public Verdict check(SlowConsumerOutcome outcome) {
        return promise.apply(outcome);
    }

    @Override
    public String toString() {
        return name;
    }
}
