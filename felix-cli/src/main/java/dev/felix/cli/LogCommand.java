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
            description = {"List the segments of a log directory (or of every log under DATA_DIR/logs): files,",
                "offsets, record counts and sizes."})
    static final class Inspect implements Callable<Integer> {
        @Parameters(paramLabel = "DIR", description = "a log directory, or a directory of log directories")
        Path dir;

        @Override
        public Integer call() {
            requireDirectory(dir);
            System.out.print(LogTools.inspect(dir).render());
            return 0;
        }
    }

    @Command(name = "verify", mixinStandardHelpOptions = true,
            description = {"Check every header and record checksum and offset continuity. Exit status 0 when",
                "clean, 1 when a problem was found (each is listed with its file and byte position)."})
    static final class Verify implements Callable<Integer> {
        @Parameters(paramLabel = "DIR", description = "a log directory, or a directory of log directories")
        Path dir;

        @Override
        public Integer call() {
            requireDirectory(dir);
            LogTools.Verification v = LogTools.verify(dir);
            System.out.print(v.render());
            return v.clean() ? 0 : 1;
        }
    }

    static void requireDirectory(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new Errors.UsageException(dir + " is not a directory");
        }
    }
}
