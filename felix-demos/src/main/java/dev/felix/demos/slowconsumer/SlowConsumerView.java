package dev.felix.demos.slowconsumer;

/** Shows a run while it happens: plain lines, or a live terminal view. */
public interface SlowConsumerView extends AutoCloseable {

    void runStarted(IsolationPolicy policy, SlowConsumerConfig config);

    void tick(SlowConsumerTick tick);

    @Override
    void close();
}
