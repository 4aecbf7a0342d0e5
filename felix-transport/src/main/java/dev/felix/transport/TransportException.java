package dev.felix.transport;

/** A transport endpoint could not be created, bound or connected. */
public final class TransportException extends Exception {
    public TransportException(String message, Throwable cause) {
        super(message, cause);
    }
}
