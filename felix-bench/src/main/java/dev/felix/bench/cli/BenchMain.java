package dev.felix.bench.cli;

import dev.felix.client.FelixClientException;
import dev.felix.server.HeapSoftMax;
import dev.felix.transport.NettyLeakDefault;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The entry point of {@code felix-bench.jar}: {@code felix bench ...} with the same subcommands and options
 * it always had. The {@code ./felix} launcher runs this jar for {@code felix bench ...} (and
 * {@code felix help bench}); everything else runs {@code felix.jar}, which carries no benchmark code, JMH or
 * peer clients. Arguments are the whole command line, {@code bench} included, so usage reads
 * {@code felix bench latency ...}.
 *
 * <p>Exit status: 0 when every run passed its checks, 1 when one failed (or the command failed), 2 for a
 * usage error.
 */
@Command(name = "felix",
        description = "Benchmarks of the felix command; see 'felix bench --help'.",
        subcommands = {BenchCommand.class, CommandLine.HelpCommand.class})
public final class BenchMain implements Runnable {

    /** Exit code for a failed command or a run that failed its checks. */
    static final int FAILED = 1;
    /** Exit code for a usage or configuration problem. */
    static final int USAGE = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs {@code args} (starting with {@code bench}) and returns the exit code; turns Netty's leak detection off first. */
    public static int execute(String... args) {
        // The Felix broker and clients a benchmark times run in this JVM: measured as ./felix server runs them,
        // without Netty's leak detection unless the JVM was started with a level.
        NettyLeakDefault.apply();
        HeapSoftMax.install(); // and ZGC's heap kept as ./felix server keeps it (felix-server's HeapSoftMax)
        CommandLine cli = new CommandLine(new BenchMain());
        cli.setExecutionExceptionHandler(BenchMain::failed);
        return cli.execute(args);
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** One clear line (with the error code) instead of a stack trace; FELIX_DEBUG=1 adds the trace. */
    private static int failed(Exception e, CommandLine cmd, CommandLine.ParseResult parse) {
        if (e instanceof UsageException) {
            cmd.getErr().println("felix: " + e.getMessage());
            return USAGE;
        }
        if (e instanceof FelixClientException) {
            cmd.getErr().println("felix: " + e.getMessage());
            return FAILED;
        }
        cmd.getErr().println("felix: " + e);
        if (System.getenv("FELIX_DEBUG") != null) {
            e.printStackTrace(cmd.getErr());
        } else {
            cmd.getErr().println("(set FELIX_DEBUG=1 for a stack trace)");
        }
        return FAILED;
    }
}
