package dev.felix.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.transport.NettyLeakDefault;
import io.netty.util.ResourceLeakDetector;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code felix bench ...} as {@code felix-bench.jar} runs it: the same subcommands and options as when the
 * command lived in felix.jar, help that reads well (every summary a whole sentence on one line), and
 * usage errors with exit status 2. Nothing here runs a benchmark.
 */
class BenchCliTest {

    /** The command surface (as before the benchmarks left felix.jar, plus cluster and fanout): subcommand to option names. */
    private static final Map<String, Set<String>> SURFACE = new LinkedHashMap<>();

    static {
        Set<String> help = Set.of("-h", "--help", "-V", "--version");
        Set<String> common = Set.of("--quick", "--payload", "--fanout", "--runs", "--results", "--set");
        SURFACE.put("latency", union(help, common, Set.of("--warmup", "--count", "--jit-warmup", "--systems")));
        SURFACE.put("throughput", union(help, common,
                Set.of("--batch", "--mib-per-sub", "--max-seconds", "--warmup-seconds", "--window-mib", "--systems")));
        SURFACE.put("compare", union(help, Set.of("--quick", "--runs", "--latency-payload", "--throughput-payload",
                "--fanout", "--count", "--mib-per-sub", "--max-seconds", "--warmup-seconds", "--systems", "--durable", "--results",
                "--set")));
        SURFACE.put("watch", union(help, Set.of("--quick", "--watchers", "--keys", "--runs", "--systems", "--rate",
                "--results", "--set")));
        SURFACE.put("storage", Set.of()); // parses its own --name=value options (felix bench storage --help)
        SURFACE.put("micro", help);       // passes every other argument to JMH
        SURFACE.put("cluster", Set.of()); // parses its own --name=value options (felix bench cluster --help)
        SURFACE.put("fanout", Set.of());  // parses its own --name=value options (felix bench fanout --help)
    }

    @Test
    void theBenchmarksRunWithoutNettyLeakDetection_asTheFelixCommandDoes() {
        ResourceLeakDetector.Level before = ResourceLeakDetector.getLevel();
        String property = System.getProperty(NettyLeakDefault.LEVEL);
        try {
            System.clearProperty(NettyLeakDefault.LEVEL);
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE); // Netty's own default
            PrintStream out = System.out;
            try {
                System.setOut(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
                assertThat(BenchMain.execute("bench", "--help")).isZero();
            } finally {
                System.setOut(out);
            }
            // The Felix broker and clients a benchmark times live in this JVM (and the watch broker's process
            // starts through BrokerMain, which does the same): a stack trace per 128 buffers is not measured.
            assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.DISABLED);
        } finally {
            ResourceLeakDetector.setLevel(before);
            if (property != null) {
                System.setProperty(NettyLeakDefault.LEVEL, property);
            }
        }
    }

    @Test
    void subcommandsAndOptions_areExactlyTheOnesFelixBenchAlwaysHad() {
        CommandLine bench = new CommandLine(new BenchMain()).getSubcommands().get("bench");

        Map<String, Set<String>> actual = new LinkedHashMap<>();
        bench.getSubcommands().forEach((name, sub) -> {
            Set<String> names = new TreeSet<>();
            for (OptionSpec o : sub.getCommandSpec().options()) {
                names.addAll(Arrays.asList(o.names()));
            }
            actual.put(name, names);
        });

        assertThat(actual.keySet()).containsExactlyElementsOf(SURFACE.keySet());
        SURFACE.forEach((name, options) -> assertThat(actual.get(name)).as(name).containsExactlyInAnyOrderElementsOf(options));
        assertThat(bench.getCommandSpec().options()).extracting(OptionSpec::longestName)
                .containsExactlyInAnyOrder("--help", "--version");
    }

    @Test
    void benchHelp_listsEverySubcommandWithAOneLineSentence() {
        Result r = run("bench", "--help");

        assertThat(r.code).isZero();
        assertThat(r.out).startsWith("Usage: felix bench ");
        List<String> commands = commandList(r.out);
        assertThat(commands).hasSize(SURFACE.size());
        for (String line : commands) {
            String name = line.strip().split("\\s+", 2)[0];
            String summary = line.strip().substring(name.length()).strip();
            assertThat(SURFACE).as(line).containsKey(name);
            // A whole sentence: ends with a full stop, never with the ';' or ',' of a cut-off description.
            assertThat(summary).as(name).endsWith(".").doesNotEndWith(";.").hasSizeGreaterThan(20);
            assertThat(line.length()).as("one line: " + line).isLessThanOrEqualTo(80);
        }
        assertThat(r.out).contains("--quick");
    }

    @Test
    void everySubcommandsFirstDescriptionLine_isAWholeSentence_andItsHelpSaysHowLongItTakes() {
        CommandLine bench = new CommandLine(new BenchMain()).getSubcommands().get("bench");
        bench.getSubcommands().forEach((name, sub) -> {
            CommandSpec spec = sub.getCommandSpec();
            String[] description = spec.usageMessage().description();
            assertThat(description).as(name).isNotEmpty();
            assertThat(description[0]).as(name).endsWith(".");
            assertThat(String.join(" ", description)).as(name + ": how long a run takes").containsPattern(
                    "Takes (about|up to)? ?[0-9]|Takes about an hour|about [0-9-]+ minutes");
        });
    }

    @Test
    void subcommandHelp_printsUsageUnderFelixBench() {
        for (String name : List.of("latency", "throughput", "compare", "watch")) {
            Result r = run("bench", name, "--help");
            assertThat(r.code).as(name).isZero();
            assertThat(r.out).as(name).startsWith("Usage: felix bench " + name);
        }
        Result storage = run("bench", "storage", "--help");
        assertThat(storage.code).isZero();
        assertThat(storage.out).contains("Usage: felix bench storage", "--fsync=");
        Result help = run("help", "bench");
        assertThat(help.code).isZero();
        assertThat(help.out).startsWith("Usage: felix bench ");
    }

    @Test
    void version_isPrintedByBenchAndEverySubcommandThatOffersIt() {
        for (String[] args : new String[][] {{"bench", "--version"}, {"bench", "latency", "-V"}, {"bench", "watch", "-V"}}) {
            Result r = run(args);
            assertThat(r.code).as(String.join(" ", args)).isZero();
            assertThat(r.out).as(String.join(" ", args)).startsWith("felix bench ").contains("Java ");
        }
    }

    @Test
    void usageErrors_exitWith2AndNameTheProblem() {
        Result unknown = run("bench", "latency", "--no-such-option");
        assertThat(unknown.code).isEqualTo(2);
        assertThat(unknown.err).contains("--no-such-option");

        Result storage = run("bench", "storage", "--fsync=sometimes");
        assertThat(storage.code).isEqualTo(2);
        assertThat(storage.err).startsWith("felix: ").contains("sometimes");

        Result watch = run("bench", "watch", "--watchers", "0");
        assertThat(watch.code).isEqualTo(2);
        assertThat(watch.err).startsWith("felix: ").contains("watcher counts must be >= 1");
    }

    // ------------------------------------------------------------------ harness

    private static Set<String> union(Set<String>... sets) {
        Set<String> all = new TreeSet<>();
        for (Set<String> s : sets) {
            all.addAll(s);
        }
        return all;
    }

    /** The lines under "Commands:" in a usage text. */
    private static List<String> commandList(String usage) {
        List<String> lines = new ArrayList<>();
        boolean in = false;
        for (String line : usage.split("\n")) {
            if (line.equals("Commands:")) {
                in = true;
            } else if (in && !line.isBlank()) {
                lines.add(line);
            }
        }
        return lines;
    }

    private record Result(int code, String out, String err) {
    }

    private static synchronized Result run(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int code = BenchMain.execute(args);
            return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }
}
