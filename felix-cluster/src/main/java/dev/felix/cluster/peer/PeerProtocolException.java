package dev.felix.cluster.peer;

/** A peer frame that is not a valid message; the stream that carried it is closed. */
public final class PeerProtocolException extends Exception {
    public PeerProtocolException(String message) {
        super(message);
    }
}
