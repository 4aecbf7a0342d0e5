package dev.felix.cli;

import dev.felix.storage.LogTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code felix log inspect|verify}: read-only tools for log directories (work on corrupt logs too). */
@Command(name = "log", mixinStandardHelpOptions = true,
        description = "Inspect and verify durable-stream logs on disk (read-only).",
        subcommands = {LogCommand.Inspect.class, LogCommand.Verify.class})
final class LogCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    @Command(name = "inspect", mixinStandardHelpOptions = true,
            description = {"List the segments of durable-stream logs on disk.",
                "",
                "For each log: its segment files, their offsets, record counts and sizes.",
                "",
                "DIR is one log directory, a directory of them (DATA_DIR/logs), or a broker's data directory. A DIR holding no log is an error (exit status 2)."})
    static final class Inspect implements Callable<Integer> {
        @Parameters(paramLabel = "DIR", description = "A log directory, a directory of log directories"
                + " (DATA_DIR/logs), or a data directory.")
        Path dir;

        @Override
        public Integer call() {
            Path logs = logsUnder(dir);
            LogTools.Inspection inspection = LogTools.inspect(logs);
            if (inspection.logs().isEmpty()) {
                throw noLogs(dir);
            }
            System.out.print(inspection.render());
            return 0;
        }
    }

    @Command(name = "verify", mixinStandardHelpOptions = true,
            description = {"Check every checksum and offset of durable-stream logs.",
                "",
                "Checks every segment header and record checksum and that offsets are contiguous. Exit status: 0 when clean, 1 when a problem was found (each is listed with its file and byte position), 2 when DIR holds no log."})
    static final class Verify implements Callable<Integer> {
        @Parameters(paramLabel = "DIR", description = "A log directory, a directory of log directories"
                + " (DATA_DIR/logs), or a data directory.")
        Path dir;

        @Override
        public Integer call() {
            Path logs = logsUnder(dir);
            LogTools.Verification v = LogTools.verify(logs);
            if (v.logs() == 0) {
                throw noLogs(dir);
            }
            System.out.print(v.render());
            return v.clean() ? 0 : 1;
        }
    }

    /** {@code dir}, or its {@code logs} subdirectory when {@code dir} is a broker's data directory. */
    static Path logsUnder(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new Errors.UsageException(dir + " is not a directory");
        }
        Path logs = dir.resolve("logs");
        return Files.isDirectory(logs) && LogTools.inspect(dir).logs().isEmpty() ? logs : dir;
    }

    private static Errors.UsageException noLogs(Path dir) {
        return new Errors.UsageException("no log found in " + dir + ": give a log directory (it holds segment"
                + " files such as 00000000000000000000.log), a directory of them such as DATA_DIR/logs, or a"
                + " data directory");
    }
}
