package dev.felix.demos.common;

/** The demo was invoked wrongly; the message says how (exit status 2). */
public final class UsageException extends Exception {

    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }
}
