package dev.felix.cli;

import dev.felix.client.FelixClientException;
import picocli.CommandLine;

/** Prints failures as one clear line (with the error code) instead of a stack trace. */
final class Errors implements CommandLine.IExecutionExceptionHandler {

    /** Exit code for a request the broker refused or that failed. */
    static final int FAILED = 1;
    /** Exit code for a usage or configuration problem. */
    static final int USAGE = 2;

    @Override
    public int handleExecutionException(Exception e, CommandLine cmd, CommandLine.ParseResult parse) {
        if (e instanceof FelixClientException fe) {
            cmd.getErr().println("felix: " + fe.getMessage());
            return FAILED;
        }
        if (e instanceof UsageException) {
            cmd.getErr().println("felix: " + e.getMessage());
            return USAGE;
        }
        cmd.getErr().println("felix: " + e);
        if (System.getenv("FELIX_DEBUG") != null) {
            e.printStackTrace(cmd.getErr());
        } else {
            cmd.getErr().println("(set FELIX_DEBUG=1 for a stack trace)");
        }
        return FAILED;
    }

    /** A problem with how the command was invoked or configured. */
    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }
}
