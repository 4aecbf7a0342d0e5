package dev.felix.cli;

import dev.felix.wire.ErrorCode;
import dev.felix.client.FelixClientException;
import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * Turns every failure into one clear line on stderr, {@code felix: ...}, with the way out where there is
 * one, and an exit status: 1 for a request that failed, 2 for a usage or configuration problem (bad
 * flag, value out of range, missing file), 4 for "not found" answers of {@code cache get/delete}. A
 * stack trace only with {@code FELIX_DEBUG=1}.
 */
final class Errors implements CommandLine.IExecutionExceptionHandler, CommandLine.IParameterExceptionHandler {

    /** Exit code for a request the broker refused or that failed. */
    static final int FAILED = 1;
    /** Exit code for a usage or configuration problem. */
    static final int USAGE = 2;
    /** Exit code for a key or value that is not there ({@code cache get}, {@code cache delete}). */
    static final int ABSENT = 4;

    /** Bad flags or values, found while parsing: one line, then where to read the usage. */
    @Override
    public int handleParseException(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println("felix: " + e.getMessage());
        if (!CommandLine.UnmatchedArgumentException.printSuggestions(e, err)) {
            err.println("(see '" + cmd.getCommandSpec().qualifiedName() + " --help')");
        }
        err.flush();
        return USAGE;
    }

    @Override
    public int handleExecutionException(Exception e, CommandLine cmd, CommandLine.ParseResult parse) {
        if (e instanceof FelixClientException fe) {
            if (cmd.getCommandSpec().userObject() instanceof PubCommand && refusedByBroker(fe.code())) {
                // The broker's words as they are: a refused publish (quorum_timeout, not_leader, ...).
                cmd.getErr().println("publish failed: " + fe.brokerMessage());
            } else {
                cmd.getErr().println("felix: " + fe.getMessage());
            }
            String hint = hint(fe, clientOptions(cmd));
            if (hint != null) {
                cmd.getErr().println("  " + hint);
            }
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

    /**
     * Whether {@code code} is a cluster's refusal of the publish itself, whose text is printed as the broker
     * worded it ({@code publish failed: ...}); every other error keeps the {@code felix: code: message} form.
     */
    private static boolean refusedByBroker(dev.felix.wire.ErrorCode code) {
        return switch (code) {
            case QUORUM_TIMEOUT, NOT_LEADER, UNAVAILABLE -> true;
            default -> false;
        };
    }

    /** The client options of the command that failed, if it connects to a broker. */
    private static ClientOptions clientOptions(CommandLine cmd) {
        CommandLine.Model.CommandSpec mixin = cmd.getCommandSpec().mixins().get("client");
        return mixin != null && mixin.userObject() instanceof ClientOptions o ? o : null;
    }

    /** What the person can do about {@code e}, naming the flag and environment variable; null if nothing. */
    static String hint(FelixClientException e, ClientOptions options) {
        if (e.code() == ErrorCode.UNAUTHORIZED) {
            if (options != null && !options.tokenGiven()) {
                return "no token was given: pass --token TOKEN or set FELIX_TOKEN (a token configured for this"
                        + " tenant in the broker's auth_tokens)";
            }
            return "the broker refused the token: check --token / FELIX_TOKEN against the broker's auth_tokens"
                    + " for this tenant";
        }
        if (e.code() == ErrorCode.UNTRUSTED) {
            if (options != null && options.fingerprint != null) {
                return "the broker's certificate does not have the fingerprint given with --fingerprint: compare"
                        + " it with the 'cert' line 'felix server' prints at start";
            }
            return "the broker's certificate is not signed by " + (options != null ? options.ca : "--ca")
                    + ": pass --ca FILE (or FELIX_CA) with the broker's CA or its certificate (DATA_DIR/tls/cert.pem"
                    + " of a 'felix server' with a generated one), or --fingerprint SHA256; if the certificate is"
                    + " for another name, --server-name NAME";
        }
        if (e.code() == ErrorCode.CONNECTION_LOST && e.getMessage().contains("no answer within")) {
            return "is a broker running at " + (options != null ? options.brokersText() : "--broker")
                    + "? Start one with 'felix server', or point --broker HOST:PORT (or FELIX_BROKER) at it";
        }
        if (e.code() == ErrorCode.NOT_LEADER && e.leader() != null) {
            return "node " + e.leader().node() + " leads it: pass --broker " + e.leader().addr();
        }
        if (e.code() == ErrorCode.CONNECTION_LOST && e.getMessage().contains("cannot resolve")) {
            return "check the host in --broker HOST:PORT (or FELIX_BROKER)";
        }
        return null;
    }

    /** A problem with how the command was invoked or configured. */
    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }
}
