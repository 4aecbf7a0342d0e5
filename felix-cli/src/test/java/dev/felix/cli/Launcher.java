package dev.felix.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real {@code felix} launcher script of this checkout as a child process, as a person would:
 * its exit status, stdout and stderr are what they would see. The script runs the command from this
 * build's classes ({@code FELIX_CLASSPATH}: the jar is packaged only after the tests).
 */
final class Launcher {

    /** The {@code felix} script at the root of the checkout. */
    static final Path SCRIPT = repoRoot().resolve("felix");

    private final Path workDir;
    private final Map<String, String> env;

    Launcher(Path workDir, Map<String, String> env) {
        this.workDir = workDir;
        this.env = env;
    }

    record Result(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** Runs {@code felix args...} to completion (at most 60 s). */
    Result run(String... args) {
        return runWithInput(null, args);
    }

    /** Runs {@code felix args...} with {@code stdin} as standard input. */
    Result runWithInput(String stdin, String... args) {
        List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        command.addAll(List.of(args));
        return complete(stdin, command, "felix " + String.join(" ", args));
    }

    private Result complete(String stdin, List<String> command, String what) {
        try {
            Process p = start(command);
            if (stdin != null) {
                p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
            }
            p.getOutputStream().close();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(what + " did not finish within 60 s");
            }
            return new Result(p.exitValue(), Files.readString(out(p)), Files.readString(err(p)));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * Runs a shell command line as a README shows it ({@code seq 1 3 | ./felix pub ...}), with
     * {@code ./felix} standing for this checkout's launcher.
     */
    Result shell(String commandLine) {
        return complete(null, List.of("bash", "-c", commandLine.replace("./felix", "bash " + SCRIPT)), commandLine);
    }

    /** Starts {@code felix args...}; stdout and stderr go to files read with {@link #out} and {@link #err}. */
    Process start(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        command.addAll(List.of(args));
        return start(command);
    }

    /**
     * This test run's class path without other modules' test classes (felix-server's test fixtures): the
     * command runs what felix.jar holds, and a second logback-test.xml would make logback print its
     * configuration status on the command's standard output.
     */
    private static String productClassPath() {
        String own = java.nio.file.Path.of("target", "test-classes").toAbsolutePath().toString();
        return java.util.Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .filter(e -> !e.endsWith("test-classes") || java.nio.file.Path.of(e).toAbsolutePath().toString().equals(own))
                .filter(e -> !e.contains("felix-server") || !e.endsWith("-tests.jar"))
                .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
    }

    private Process start(List<String> command) throws IOException {
        ProcessBuilder b = new ProcessBuilder(command).directory(workDir.toFile());
        b.environment().put("FELIX_CLASSPATH", productClassPath());
        b.environment().put("FELIX_JAVA_OPTS", "-Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
        b.environment().put("FELIX_LOG_LEVEL", "warn");
        for (String k : List.of("FELIX_BROKER", "FELIX_CA", "FELIX_TOKEN", "FELIX_CONFIG", "FELIX_DATA_DIR", "FELIX_JAVA_HOME")) {
            b.environment().remove(k);
        }
        b.environment().putAll(env);
        Path dir = Files.createTempDirectory(workDir, "run");
        b.redirectOutput(dir.resolve("stdout").toFile()).redirectError(dir.resolve("stderr").toFile());
        Process p = b.start();
        OUTPUTS.put(p, dir);
        return p;
    }

    static Path out(Process p) {
        return OUTPUTS.get(p).resolve("stdout");
    }

    static Path err(Process p) {
        return OUTPUTS.get(p).resolve("stderr");
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Waits for a started process to end (at most {@code limit}), returning its exit status. */
    static int await(Process p, Duration limit) throws InterruptedException {
        if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("process did not end within " + limit);
        }
        return p.exitValue();
    }

    private static final Map<Process, Path> OUTPUTS = new java.util.concurrent.ConcurrentHashMap<>();

    private static Path repoRoot() {
        String root = System.getProperty("felix.repo.root");
        Path p = root != null ? Path.of(root) : Path.of("..");
        if (!Files.isRegularFile(p.resolve("felix"))) {
            p = Path.of("").toAbsolutePath().getParent();
        }
        return p.toAbsolutePath().normalize();
    }
}
