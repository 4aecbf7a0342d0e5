package dev.felix.bench.cli;

/** A problem with how a bench command was invoked; exit status 2 with the message. */
final class UsageException extends RuntimeException {

    UsageException(String message) {
        super(message);
    }
}
