package dev.felix.demos.slowconsumer;

import java.util.List;

/**
 * One slow-consumer invocation, as parsed from its flags.
 *
 * @param targetRate     messages per second the publisher aims for
 * @param subscribers    dashboard consumers (the last one stalls)
 * @param payloadBytes   payload size (at least the 16-byte header)
 * @param queueCapacity  broker subscriber queue and SDK receive queue depth, in events
 * @param phaseSecs      seconds per phase unit; a run is 4 units
 * @param policies       the policies to run, in order
 * @param live           draw the live view (when stdout is a terminal)
 */
public record SlowConsumerConfig(long targetRate, int subscribers, int payloadBytes, int queueCapacity, long phaseSecs,
        List<IsolationPolicy> policies, boolean live) {

    /** Each subscriber's QUIC receive window per stream (upstream: 256 KiB), so a stall reaches the broker. */
    public static final long STREAM_WINDOW_BYTES = 256L << 10;

    public SlowConsumerConfig {
        policies = List.copyOf(policies);
    }

    public static SlowConsumerConfig defaults() {
        return new SlowConsumerConfig(20_000, 3, 256, 512, 5, IsolationPolicies.available(), true);
    }

    public SlowConsumerConfig withPolicies(List<IsolationPolicy> p) {
        return new SlowConsumerConfig(targetRate, subscribers, payloadBytes, queueCapacity, phaseSecs, p, live);
    }

    public SlowConsumerConfig withPhaseSecs(long seconds) {
        return new SlowConsumerConfig(targetRate, subscribers, payloadBytes, queueCapacity, seconds, policies, live);
    }
}
