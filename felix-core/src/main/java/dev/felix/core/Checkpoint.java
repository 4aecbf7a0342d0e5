package dev.felix.core;

import java.util.Locale;

/**
 * Every place between a publisher and a subscriber where an event can wait or be dropped. Each has a
 * policy, a limit in events and bytes, and counters (metric label {@code checkpoint=<wireName>}).
 */
public enum Checkpoint {
    /** The client SDK's queue of publishes not yet written to the connection. */
    CLIENT_PUBLISH_QUEUE,
    /** Broker: publishes read from a connection and not yet handed to a shard. */
    BROKER_INGRESS,
    /** Broker: a shard's inbox of publishes its single writer has not processed yet. */
    WRITER_QUEUE,
    /** Broker: one subscriber's queue of events not yet written to its connection. */
    SUBSCRIBER_QUEUE,
    /** The client SDK's queue of received events the application has not taken yet. */
    CLIENT_RECEIVE_QUEUE;

    private final String wireName = name().toLowerCase(Locale.ROOT);

    public String wireName() {
        return wireName;
    }
}
