package dev.felix.bench.common;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A peer broker (nats-server, redis-server, etcd, ...) that a benchmark starts itself, on a loopback port,
 * in a directory of its own: the harness owns every process it measures, so no system service or earlier
 * run can be mistaken for it. Its output goes to {@code workDir/<name>.log}, which is quoted when the
 * process fails to come up.
 *
 * <p>Not thread-safe: one owner starts, reads and closes it.
 */
public final class PeerProcess implements AutoCloseable {

    /** Where Debian puts server binaries that may not be on a non-root PATH. */
    private static final List<String> EXTRA_DIRS = List.of("/usr/sbin", "/usr/bin");
    /** Grace period between SIGTERM and SIGKILL on close. */
    private static final Duration TERM_GRACE = Duration.ofSeconds(5);
    /** Lines of the log quoted when the process fails to start. */
    private static final int LOG_TAIL_LINES = 20;

    private final String name;
    private final Process process;
    private final int port;
    private final Path log;

    private PeerProcess(String name, Process process, int port, Path log) {
        this.name = name;
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Absolute path of an installed binary on PATH or in /usr/sbin, /usr/bin; empty if not installed. */
    public static Optional<Path> which(String binary) {
        String path = System.getenv("PATH");
        StringBuilder dirs = new StringBuilder(path == null ? "" : path);
        for (String d : EXTRA_DIRS) {
            dirs.append(java.io.File.pathSeparator).append(d);
        }
        for (String dir : dirs.toString().split(java.io.File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, binary);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate.toAbsolutePath());
            }
        }
        return Optional.empty();
    }

    /**
     * A free TCP port on 127.0.0.1. The OS picks it and it is released at once, so another process could
     * take it before the peer binds; {@link #start} then fails with the peer's own "address in use" line.
     */
    public static int freePort() {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    /**
     * Starts command (argv) in workDir, stdout/stderr to workDir/&lt;name&gt;.log, waits until
     * 127.0.0.1:port accepts TCP (fails with the log tail after timeout).
     */
    public static PeerProcess start(String name, List<String> command, int port, Path workDir, Duration timeout)
            throws IOException {
        Files.createDirectories(workDir);
        Path log = workDir.resolve(name + ".log");
        Process p = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        PeerProcess peer = new PeerProcess(name, p, port, log);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (accepts(port)) {
                return peer;
            }
            if (!p.isAlive()) {
                throw new IOException(name + " exited with status " + p.exitValue() + " before accepting on port "
                        + port + ":\n" + peer.logTail());
            }
            if (System.nanoTime() > deadline) {
                peer.close();
                throw new IOException(name + " did not accept on 127.0.0.1:" + port + " within "
                        + timeout.toMillis() + " ms:\n" + peer.logTail());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    /** CPU time (user+sys) of the process so far in ns, via /proc/&lt;pid&gt;/stat; -1 if unknown. */
    public long cpuNanos() {
        return CpuClock.ofProcess(process.pid());
    }

    /** The last lines of the process's log, for error messages. */
    public String logTail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(no log at " + log + ")";
        }
    }

    /** Stops it (TERM, then KILL after 5 s) and waits. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy(); // SIGTERM
        try {
            if (!process.waitFor(TERM_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ", port " + port + ")";
    }
}
