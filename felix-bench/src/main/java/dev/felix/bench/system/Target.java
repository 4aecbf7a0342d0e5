package dev.felix.bench.system;

import java.util.List;

/**
 * One freshly started system under test (a broker plus whatever it needs), to which a workload
 * publishes and subscribes. Every subscription and every publisher gets a connection of its own, so
 * fanout crosses the broker for real. Closing the target stops the broker and removes its files.
 *
 * <p>Thread-safety: {@link #subscribe} and {@link #publisher} are called from the workload's thread;
 * each {@link Publisher} is used by one thread; {@link Handler#onMessage} is called on the
 * subscription's own delivery thread, one message at a time, in the order the system delivers them.
 */
public interface Target extends AutoCloseable {

    /** The system's name, e.g. {@code felix}, {@code nats-tls}. */
    String name();

    /**
     * Whether a slow subscriber slows the publisher instead of losing messages (Felix's block policies,
     * durable logs). When false (NATS core, Redis) the workload bounds what it has in flight itself.
     */
    boolean backpressure();

    /** Whether the broker runs inside this JVM (its CPU time is then already part of this process's). */
    boolean brokerInThisProcess();

    /** CPU time the broker used so far (ns): its threads in this JVM, or its process; -1 if unknown. */
    long brokerCpuNanos();

    /** Bytes allocated so far by the broker's threads, when they run in this JVM; -1 otherwise. */
    default long brokerAllocatedBytes() {
        return -1;
    }

    /** A publisher to {@code topic} on a connection of its own. */
    Publisher publisher(String topic) throws Exception;

    /**
     * Subscribes to {@code topic} on a connection of its own; returns once the subscription is in place
     * (whatever is published afterwards reaches it). Closing the result ends the subscription and its
     * connection.
     */
    AutoCloseable subscribe(String topic, Handler handler) throws Exception;

    /** Stops the broker (and any connection still open); never throws. */
    @Override
    void close();

    /** Publishes to one topic; used by one thread. */
    interface Publisher extends AutoCloseable {

        /**
         * Publishes one message and returns once the broker confirmed it: Felix's per-message ack, a NATS
         * flush round trip (PING/PONG after the PUB), Redis's PUBLISH reply, JetStream's PubAck.
         */
        void publishConfirmed(byte[] message) throws Exception;

        /**
         * Publishes messages in order without waiting for each confirmation (the system's batch or
         * pipelined path); may block while the system pushes back.
         */
        void publishBatch(List<byte[]> messages) throws Exception;

        /** Returns once everything published so far has reached the broker (or been confirmed by it). */
        void flush() throws Exception;

        @Override
        void close() throws Exception;
    }

    /** Receives one subscription's messages. Must not throw. */
    interface Handler {
        void onMessage(byte[] message);

        /**
         * A message read where it arrived, between the buffer's position and limit, valid only during the call: for a
         * client that lends its receive buffer instead of copying (Felix's {@code EventViewHandler}).
         */
        void onMessage(java.nio.ByteBuffer message);
    }
}
