package dev.felix.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Runs {@code felix ARGS} in this JVM with standard input given and standard output and error captured (the
 * commands and demos print to {@code System.out} / {@code System.err}). One at a time: the streams are
 * process-wide.
 */
final class InProcessCli {

    /** What a command printed and its exit status. */
    record Result(int code, String out, String err) {
    }

    private InProcessCli() {
    }

    static Result run(String... args) {
        return runWithInput(null, args);
    }

    static synchronized Result runWithInput(String stdin, String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        InputStream oldIn = System.in;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            if (stdin != null) {
                System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
            }
            int code = FelixCommand.execute(args);
            return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
            System.setIn(oldIn);
        }
    }
}
