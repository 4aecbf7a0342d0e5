package dev.felix.testing;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;

/**
 * A {@code felix server} in a child process on loopback ports the OS picks, for tests that need a real
 * process: {@code kill -9}, SIGTERM, exit codes. The child runs this JVM's own java binary with this JVM's
 * class path, so it runs the code under test, not an installed jar.
 *
 * <p>Its stdout and stderr go to files (they survive {@link #kill()}, which closes pipes); {@link #start}
 * returns once the child printed its startup banner and the QUIC and admin ports were read from it.
 *
 * <p>Not thread-safe: one test thread starts, kills and closes it.
 */
public final class BrokerProcess implements AutoCloseable {

    /** The main class of the {@code felix} command, which runs {@code felix server}. */
    public static final String FELIX_MAIN = "dev.felix.cli.FelixCommand";
    /** How long a broker may take to print its banner (a loaded 2-core machine, a cold JIT). */
    public static final Duration STARTUP = Duration.ofSeconds(60);

    private static final Pattern QUIC = Pattern.compile("(?m)^\\s+quic\\s+127\\.0\\.0\\.1:(\\d+)");
    private static final Pattern ADMIN = Pattern.compile("(?m)^\\s+admin\\s+http://127\\.0\\.0\\.1:(\\d+)");

    private final Process process;
    private final int quicPort;
    private final int httpPort;
    private final Path stdout;
    private final Path stderr;

    private BrokerProcess(Process process, int quicPort, int httpPort, Path stdout, Path stderr) {
        this.process = process;
        this.quicPort = quicPort;
        this.httpPort = httpPort;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /**
     * Starts {@code felix server --data-dir dataDir --quic-bind 127.0.0.1:0 --http-bind 127.0.0.1:0 [extra...]}
     * at log level info, its output in {@code logDir/name.out} and {@code .err}, and waits until it is ready.
     */
    public static BrokerProcess start(Path dataDir, Path logDir, String name, List<String> extra) throws Exception {
        String javaBin = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(javaBin, "-Xmx256m", "-cp",
                System.getProperty("java.class.path"), FELIX_MAIN, "server",
                "--data-dir", dataDir.toString(), "--quic-bind", "127.0.0.1:0", "--http-bind", "127.0.0.1:0"));
        command.addAll(extra);
        Path out = logDir.resolve(name + ".out");
        Path err = logDir.resolve(name + ".err");
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectOutput(out.toFile()) // files survive the process being killed
                .redirectError(err.toFile());
        builder.environment().put("FELIX_LOG_LEVEL", "info");
        Process process = builder.start();
        try {
            Awaitility.await().atMost(STARTUP).pollInterval(Duration.ofMillis(20)).until(() -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException("broker exited with " + process.exitValue() + ": "
                            + Files.readString(err));
                }
                return Files.readString(out).contains("  mode ");
            });
            String text = Files.readString(out);
            Matcher q = QUIC.matcher(text);
            Matcher h = ADMIN.matcher(text);
            if (!q.find() || !h.find()) {
                throw new IllegalStateException("unexpected startup output: " + text);
            }
            return new BrokerProcess(process, Integer.parseInt(q.group(1)), Integer.parseInt(h.group(1)), out, err);
        } catch (Exception | Error e) {
            process.destroyForcibly();
            throw e;
        }
    }

    public Process process() {
        return process;
    }

    public int quicPort() {
        return quicPort;
    }

    public int httpPort() {
        return httpPort;
    }

    public InetSocketAddress quicAddress() {
        return new InetSocketAddress("127.0.0.1", quicPort);
    }

    /** The file the child's stdout goes to. */
    public Path stdout() {
        return stdout;
    }

    /** The file the child's stderr goes to. */
    public Path stderr() {
        return stderr;
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed. Returns once the process is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** SIGTERM, then up to 30 s for a clean exit, then SIGKILL. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor();
            }
        }
    }
}
