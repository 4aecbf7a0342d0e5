package dev.felix.demos.slowconsumer;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.client.StreamRef;
import dev.felix.client.SubscribeOptions;
import dev.felix.demos.common.Verdict;
import java.util.List;
import java.util.Map;

/**
 * One arm of the slow-consumer comparison: how the stream and every checkpoint are set, and what the
 * arm promises.
 */
public interface IsolationPolicy {

    /** The {@code --policy} value, e.g. {@code drop_new}. */
    String name();

    /** The trade-off the arm makes, in one line. */
    String tradeoff();

    /** Checkpoint settings, one line each. */
    List<String> checkpoints(SlowConsumerConfig config);

    Map<String, String> brokerSettings(SlowConsumerConfig config);

    ClientConfig.Builder client(ClientConfig.Builder builder, SlowConsumerConfig config);

    /** Creates the stream through {@code admin}. */
    void createStream(FelixClient admin, StreamRef stream);

    SubscribeOptions subscribeOptions(StreamRef stream, SlowConsumerConfig config);

    /** Whether the run kept this arm's promise. */
    Verdict check(SlowConsumerOutcome outcome);
}
