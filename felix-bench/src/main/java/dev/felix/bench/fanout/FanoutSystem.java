package dev.felix.bench.fanout;

/**
 * A broker under {@code felix bench fanout}: a real broker process of its own (or a cluster of them, {@code
 * --nodes 3}), its clients in this process.
 * Used by one thread: {@link #connect}, then {@link #subscribe}, then {@link #publish} at the benchmark's pace.
 */
interface FanoutSystem extends AutoCloseable {

    /** The broker processes' ids (one, or one per node of a cluster), for their CPU time and memory, summed. */
    java.util.List<Long> brokerPids();

    /** Whether the broker is a JVM whose live heap can be measured ({@link ProcessMemory#liveHeapBytes}). */
    boolean jvm();

    /** Opens {@code connections} subscriber connections. */
    void connect(int connections) throws Exception;

    /**
     * Subscribes {@code deliveries.subscribers()} subscribers to the benchmark's stream, spread evenly over the
     * connections, all at once; returns when the broker confirmed every one (and will deliver to it).
     */
    void subscribe(Deliveries deliveries) throws Exception;

    /** Sends one message (without waiting for the broker); returns false if the publisher has failed. */
    boolean publish(byte[] message) throws Exception;

    /** Subscriber connections that are no longer connected. */
    int lostConnections();

    /** What went wrong on the publishing side, or null. */
    String publishProblem();

    @Override
    void close() throws Exception;
}
