package dev.felix.transport;

/** A TLS identity or trust configuration could not be loaded, generated or used. */
public final class TlsException extends Exception {
    public TlsException(String message, Throwable cause) {
        super(message, cause);
    }
}
