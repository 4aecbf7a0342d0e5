package dev.felix.demos.slowconsumer;

import java.util.Arrays;

/**
 * Latency samples of one subscriber since the control loop last drained them, capped (upstream:
 * 200,000) so a long tick cannot grow it without bound. Written by the subscriber, drained by the
 * control loop.
 */
final class LatencyWindow {

    static final int CAPACITY = 200_000;

    private long[] samples = new long[1024];
    private int size;

    synchronized void add(long nanos) {
        if (size == CAPACITY) {
            return;
        }
        if (size == samples.length) {
            samples = Arrays.copyOf(samples, Math.min(CAPACITY, samples.length * 2));
        }
        samples[size++] = nanos;
    }

    /** The samples so far, emptying the window. */
    synchronized long[] drain() {
        long[] out = Arrays.copyOf(samples, size);
        size = 0;
        return out;
    }
}
