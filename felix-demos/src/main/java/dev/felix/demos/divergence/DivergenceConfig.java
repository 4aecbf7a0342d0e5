package dev.felix.demos.divergence;

import java.util.List;

/**
 * One state-divergence invocation, as parsed from its flags.
 *
 * @param rate               changes published per second
 * @param keys               size of the keyspace
 * @param consumers          consumer count
 * @param stalled            how many consumers stall (the last ones); at least one stays healthy
 * @param payloadBytes       payload size (at least the 18-byte header)
 * @param queueCapacity      broker subscriber queue depth (watch mode: each watcher's queue), in events
 * @param phaseSecs          seconds per phase unit; a run is 5 units
 * @param modes              the modes to run, in order
 * @param live               draw the live view (when stdout is a terminal)
 * @param streamWindowBytes  each consumer's QUIC receive window per stream
 * @param nodes              1: each mode on a fresh in-process broker; {@value #CLUSTER_NODES}: the watch mode on
 *                           that many {@code felix server} processes forming a cluster
 */
public record DivergenceConfig(long rate, int keys, int consumers, int stalled, int payloadBytes, int queueCapacity,
        long phaseSecs, List<DivergenceMode> modes, boolean live, long streamWindowBytes, int nodes) {

    /** The cluster size {@code --nodes} accepts besides 1 (the three-node cluster). */
    public static final int CLUSTER_NODES = 3;

    /** Events each consumer's SDK receive queue holds (upstream's client queue capacity, not a flag). */
    public static final int CLIENT_QUEUE_EVENTS = 256;
    /**
     * Default QUIC per-stream window, on the consumers' side and the broker's: small, so that a stall
     * backs up to the broker and, where the policy blocks, on to the publisher within one run.
     */
    public static final long DEFAULT_STREAM_WINDOW = 16L << 10;
    /** The broker's per-shard writer queue, in events: small for the same reason (the broker default is 16384). */
    public static final int WRITER_QUEUE_EVENTS = 256;

    public DivergenceConfig {
        modes = List.copyOf(modes);
        if (stalled < 1 || stalled >= consumers) {
            throw new IllegalArgumentException("stalled must be within [1, consumers - 1], was " + stalled
                    + " of " + consumers);
        }
        if (nodes != 1 && nodes != CLUSTER_NODES) {
            throw new IllegalArgumentException("nodes must be 1 or " + CLUSTER_NODES + ", was " + nodes);
        }
        if (nodes > 1 && !modes.equals(List.of(DivergenceModes.WATCH))) {
            throw new IllegalArgumentException("a cluster runs the watch mode only, not " + modes);
        }
    }

    /** On one in-process broker per mode. */
    public DivergenceConfig(long rate, int keys, int consumers, int stalled, int payloadBytes, int queueCapacity,
            long phaseSecs, List<DivergenceMode> modes, boolean live, long streamWindowBytes) {
        this(rate, keys, consumers, stalled, payloadBytes, queueCapacity, phaseSecs, modes, live, streamWindowBytes,
                1);
    }

    /** Whether the run is on a cluster of node processes rather than one in-process broker. */
    public boolean clustered() {
        return nodes > 1;
    }

    public static DivergenceConfig defaults() {
        return new DivergenceConfig(400, 2000, 3, 1, 64, 512, 4, DivergenceModes.available(), true,
                DEFAULT_STREAM_WINDOW);
    }

    public DivergenceConfig withModes(List<DivergenceMode> m) {
        return new DivergenceConfig(rate, keys, consumers, stalled, payloadBytes, queueCapacity, phaseSecs, m, live,
                streamWindowBytes, nodes);
    }
}
