package dev.felix.wire;

/** Which way a frame or message travels. Used to check that a peer only sends what it may send. */
public enum Direction {
    /** Client (SDK) to broker. */
    CLIENT_TO_BROKER,
    /** Broker to client (SDK). */
    BROKER_TO_CLIENT
}
