package dev.felix.cli;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;

/** A {@code felix server} child process on loopback ports chosen by the OS, for process-level tests. */
final class BrokerProcess implements AutoCloseable {

    final Process process;
    final int quicPort;
    final int httpPort;
    final Path stdout;
    final Path stderr;

    private BrokerProcess(Process process, int quicPort, int httpPort, Path stdout, Path stderr) {
        this.process = process;
        this.quicPort = quicPort;
        this.httpPort = httpPort;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /** Starts {@code felix server --data-dir dataDir [extra...]} and waits until it reports it is ready. */
    static BrokerProcess start(Path dataDir, Path logDir, String name, List<String> extra) throws Exception {
        String javaBin = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new java.util.ArrayList<>(List.of(javaBin, "-Xmx256m", "-cp",
                System.getProperty("java.class.path"), FelixCommand.class.getName(), "server",
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
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException("broker exited: " + Files.readString(err));
                }
                return Files.readString(out).contains("  mode ");
            });
            String text = Files.readString(out);
            Matcher q = Pattern.compile("(?m)^\\s+quic\\s+127\\.0\\.0\\.1:(\\d+)").matcher(text);
            Matcher h = Pattern.compile("(?m)^\\s+admin\\s+http://127\\.0\\.0\\.1:(\\d+)").matcher(text);
            if (!q.find() || !h.find()) {
                throw new IllegalStateException("unexpected startup output: " + text);
            }
            return new BrokerProcess(process, Integer.parseInt(q.group(1)), Integer.parseInt(h.group(1)), out, err);
        } catch (Exception e) {
            process.destroyForcibly();
            throw e;
        }
    }

    InetSocketAddress quicAddress() {
        return new InetSocketAddress("127.0.0.1", quicPort);
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
