package dev.felix.cli;

import dev.felix.transport.NettyLeakDefault;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code felix} command: run a broker, publish, subscribe, manage streams and caches, benchmark, demo. */
@Command(name = "felix",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        description = {
            "A low-latency pub/sub, cache and durable-log broker over QUIC.",
            "",
            "Start a broker with embedded defaults:   felix server",
            "Then, in another terminal:               felix sub t1/default/demo --count 1",
            "And in a third:                          felix pub t1/default/demo hello",
            "",
            "Exit status: 0 done, 1 a request failed, 2 a usage or configuration error, 3 'sub --idle-timeout'"
                + " ran out, 4 'cache get/delete' of a key that is not set."
        },
        subcommands = {
            ServerCommand.class,
            PubCommand.class,
            SubCommand.class,
            StreamCommand.class,
            ClusterCommand.class,
            LogCommand.class,
            CacheCommand.class,
            BenchCommand.class,
            DemoCommand.class,
            CommandLine.HelpCommand.class
        })
public final class FelixCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        NettyLeakDefault.apply();
        System.exit(execute(args));
    }

    /** Runs the command line and returns its exit code (for tests). */
    public static int execute(String... args) {
        CommandLine cli = new CommandLine(new FelixCommand());
        Errors errors = new Errors();
        cli.setExecutionExceptionHandler(errors);
        cli.setParameterExceptionHandler(errors);
        return cli.execute(args);
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
