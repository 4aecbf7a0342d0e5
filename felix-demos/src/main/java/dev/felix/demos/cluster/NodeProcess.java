package dev.felix.demos.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code felix server} cluster node as a child process on loopback ports: started with this JVM's java
 * and class path (the {@code felix} launcher's jar, or a test's class path), its output in files that
 * survive a kill. {@link #freeze()} and {@link #thaw()} send SIGSTOP and SIGCONT; {@link #kill()} SIGKILL;
 * {@link #restart()} starts it again over the same data directory (a node remembers its id, Raft port and
 * membership there; its QUIC port is new).
 *
 * <p>Not thread-safe: one thread drives a node.
 */
public final class NodeProcess implements AutoCloseable {

    private static final HttpClient METRICS_HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3))
            .build();

    /** The main class of the {@code felix} command. */
    static final String FELIX_MAIN = "dev.felix.cli.FelixCommand";
    /**
     * Lets Netty allocate direct memory itself instead of through {@code ByteBuffer.allocateDirect}, which zero-fills
     * every new buffer ({@code NettyMemoryAccess}; the launcher does the same). Declared before {@link
     * #SERVER_JVM}, which is built from it.
     */
    static final List<String> NETTY_ALLOCATES = List.of("--add-opens=java.base/java.nio=ALL-UNNAMED",
            "-Dio.netty.tryReflectionSetAccessible=true");

    /** Test and demo nodes: several share the machine with the tests' own JVM. */
    public static final List<String> TEST_JVM = List.of("-Xmx384m", "-XX:+UseSerialGC");
    /**
     * What {@code ./felix server} runs a broker with on this JVM's version (see the launcher script): generational
     * ZGC from JDK 21, on transparent huge pages where the kernel lends them to its heap ({@code HeapPages}), else G1
     * giving idle memory back; on JDK 24 and 25, Netty copying through {@code Unsafe} ({@link #UNSAFE_ALLOWED}); on
     * every JDK, Netty allocating direct memory itself ({@link #NETTY_ALLOCATES}).
     */
    public static final List<String> SERVER_JVM = serverJvm(Runtime.version().feature(),
            dev.felix.server.HeapPages.kernelAllowsForSharedMemory());
    /** How long a node may take to print its banner (a cold JVM on a loaded 2-core machine; a join). */
    static final Duration STARTUP = Duration.ofSeconds(90);

    /**
     * Lets Netty copy through {@code sun.misc.Unsafe} on JDK 24 and later, where Netty 4.2 stops by default
     * ({@code NettyMemoryAccess}; the launcher does the same).
     */
    static final String UNSAFE_ALLOWED = "--sun-misc-unsafe-memory-access=allow";
    /** The newest JDK the option was checked on: a later one may refuse it, and a JVM refusing an option never starts. */
    static final int UNSAFE_CHECKED_UP_TO = 25;

    /** {@link #SERVER_JVM} for a JDK of {@code feature}, where the kernel does or does not lend ZGC huge pages. */
    static List<String> serverJvm(int feature, boolean hugePages) {
        if (feature < 21) {
            List<String> g1 = new java.util.ArrayList<>(List.of("-XX:+UseG1GC", "-XX:G1PeriodicGCInterval=10000",
                    "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=20"));
            g1.addAll(NETTY_ALLOCATES);
            return List.copyOf(g1);
        }
        List<String> options = new java.util.ArrayList<>(List.of("-XX:+UseZGC", "-XX:ZUncommitDelay=30"));
        if (feature < 23) {
            options.add("-XX:+ZGenerational");
        }
        if (hugePages) {
            options.add("-XX:+UseTransparentHugePages");
        }
        if (feature >= 24 && feature <= UNSAFE_CHECKED_UP_TO) {
            options.add(UNSAFE_ALLOWED);
        }
        options.addAll(NETTY_ALLOCATES);
        return List.copyOf(options);
    }

    private static final Pattern QUIC = Pattern.compile("(?m)^\\s+quic\\s+127\\.0\\.0\\.1:(\\d+)");
    private static final Pattern ADMIN = Pattern.compile("(?m)^\\s+admin\\s+http://127\\.0\\.0\\.1:(\\d+)");
    private static final Pattern RAFT = Pattern.compile("(?m)^\\s+node\\s+\\S+\\s+\\(raft ([^,]+),");

    final String id;
    private final Path dataDir;
    private final Path logDir;
    private final Path ca;
    private final Path caKey;
    private final List<String> extra;
    /** JVM options of the node's process: small and serial for tests and demos, unless a benchmark says. */
    private List<String> jvmOptions = TEST_JVM;
    /** The node's {@code --raft-bind}: any free port, unless a proxy in front of it needs to know the port. */
    private String raftBind = "127.0.0.1:0";
    /** The node's {@code --raft-advertise}, or null for none. */
    private String raftAdvertise;
    private Process process;
    private volatile int quicPort; // read by other threads (a reader asking where the node is now)
    private int httpPort = -1;
    private String raftAddress;
    private int starts;
    private boolean frozen;

    private NodeProcess(String id, Path dataDir, Path logDir, Path ca, Path caKey, List<String> extra) {
        this.id = id;
        this.dataDir = dataDir;
        this.logDir = logDir;
        this.ca = ca;
        this.caKey = caKey;
        this.extra = List.copyOf(extra);
    }

    /**
     * Starts node {@code id} for the first time: bootstrapping a cluster ({@code join == null}) or joining
     * through the Raft address {@code join}.
     */
    static NodeProcess start(String id, Path dataDir, Path logDir, Path ca, Path caKey, String join,
            List<String> jvmOptions, List<String> extra) throws IOException, InterruptedException {
        return start(id, dataDir, logDir, ca, caKey, join, jvmOptions, extra, "127.0.0.1:0", null);
    }

    /**
     * As above, with the Raft endpoint bound at {@code raftBind} and dialled by the other nodes at
     * {@code raftAdvertise} (null: at the bind), e.g. a {@link TcpProxy}'s port in front of it.
     */
    static NodeProcess start(String id, Path dataDir, Path logDir, Path ca, Path caKey, String join,
            List<String> jvmOptions, List<String> extra, String raftBind, String raftAdvertise)
            throws IOException, InterruptedException {
        NodeProcess n = new NodeProcess(id, dataDir, logDir, ca, caKey, extra);
        n.jvmOptions = List.copyOf(jvmOptions);
        n.raftBind = raftBind;
        n.raftAdvertise = raftAdvertise;
        List<String> first = new ArrayList<>();
        if (join == null) {
            first.add("--cluster-bootstrap");
        } else {
            first.add("--cluster-join");
            first.add(join);
        }
        n.launch(first);
        return n;
    }

    /**
     * Starts a broker that is not clustered (a single node, for comparisons), with {@code extra} server flags;
     * {@link #certificate()} is the certificate clients trust.
     */
    public static NodeProcess startSingle(String id, Path dataDir, Path logDir, List<String> extra)
            throws IOException, InterruptedException {
        return startSingle(id, dataDir, logDir, TEST_JVM, extra);
    }

    /** {@link #startSingle(String, Path, Path, List)} with these JVM options (e.g. {@link #SERVER_JVM}). */
    public static NodeProcess startSingle(String id, Path dataDir, Path logDir, List<String> jvmOptions,
            List<String> extra) throws IOException, InterruptedException {
        NodeProcess n = new NodeProcess(id, dataDir, logDir, null, null, extra);
        n.jvmOptions = List.copyOf(jvmOptions);
        n.launch(List.of());
        return n;
    }

    /** The certificate a client of a single node trusts (a cluster's clients trust the cluster CA). */
    public Path certificate() {
        return dataDir.resolve("tls/cert.pem");
    }

    /** Starts the node again from its data directory (after {@link #kill()} or {@link #stop()}). */
    void restart() throws IOException, InterruptedException {
        spawnAgain();
        awaitBanner();
    }

    /**
     * Starts the process again without waiting for it to be ready ({@link #awaitBanner()}): nodes of a
     * cluster that lost its majority must start together, since each waits for a majority to answer.
     */
    void spawnAgain() throws IOException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("node " + id + " is still running");
        }
        spawn(List.of());
    }

    private void launch(List<String> membership) throws IOException, InterruptedException {
        spawn(membership);
        awaitBanner();
    }

    private Path stderr;

    private void spawn(List<String> membership) throws IOException {
        starts++;
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(jvmOptions);
        // Extra options for every node, e.g. to profile one: -Dfelix.node.jvm="-XX:+PreserveFramePointer ..."
        String more = System.getProperty("felix.node.jvm", "").strip();
        if (!more.isEmpty()) {
            command.addAll(List.of(more.split("\\s+")));
        }
        command.addAll(launcher());
        command.addAll(List.of("server", "--data-dir", dataDir.toString(),
                "--quic-bind", "127.0.0.1:0", "--http-bind", "127.0.0.1:0"));
        if (ca != null) {
            command.addAll(List.of("--node-id", id, "--raft-bind", raftBind,
                    "--cluster-ca-cert", ca.toString(), "--cluster-ca-key", caKey.toString()));
            if (raftAdvertise != null) {
                command.addAll(List.of("--raft-advertise", raftAdvertise));
            }
        }
        command.addAll(membership);
        command.addAll(extra);
        Files.createDirectories(logDir);
        Path out = stdout();
        Path err = logDir.resolve(id + "." + starts + ".err");
        stderr = err;
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().putIfAbsent("FELIX_LOG_LEVEL", "info");
        process = builder.start();
        frozen = false;
    }

    /**
     * How to run the {@code felix} command: this process's class path when it holds the CLI (the demos, the
     * tests), else the product jar ({@code felix-bench.jar} holds no CLI): {@code -Dfelix.jar=FILE}, or
     * {@code felix-cli/target/felix.jar} under the repository ({@code -Dfelix.repo.root}, default the working
     * directory).
     */
    static List<String> launcher() throws IOException {
        try {
            Class.forName(FELIX_MAIN, false, NodeProcess.class.getClassLoader());
            return List.of("-cp", System.getProperty("java.class.path"), FELIX_MAIN);
        } catch (ClassNotFoundException e) {
            Path jar = Path.of(System.getProperty("felix.jar", Path.of(System.getProperty("felix.repo.root", "."))
                    .resolve("felix-cli/target/felix.jar").toString()));
            if (!Files.isRegularFile(jar)) {
                throw new IOException("cannot start felix server nodes: " + jar + " does not exist (build it with"
                        + " ./felix --version, or pass -Dfelix.jar=FILE)");
            }
            return List.of("-jar", jar.toAbsolutePath().toString());
        }
    }

    /** Waits until the process printed its banner (it serves), reading its ports from it. */
    void awaitBanner() throws IOException, InterruptedException {
        Path out = stdout();
        Path err = stderr;
        long deadline = System.nanoTime() + STARTUP.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IOException("node " + id + " exited with " + process.exitValue() + " while starting: "
                        + tail(err));
            }
            String text = Files.readString(out);
            if (text.contains("  mode ")) {
                Matcher q = QUIC.matcher(text);
                Matcher r = RAFT.matcher(text);
                if (!q.find() || ca != null && !r.find()) {
                    throw new IOException("node " + id + " printed an unexpected banner: " + text);
                }
                quicPort = Integer.parseInt(q.group(1));
                Matcher h = ADMIN.matcher(text);
                httpPort = h.find() ? Integer.parseInt(h.group(1)) : -1;
                raftAddress = ca != null ? r.group(1) : null;
                return;
            }
            if (System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IOException("node " + id + " did not start within " + STARTUP.toSeconds() + " s: "
                        + tail(err));
            }
            Thread.sleep(20); // polling a child's output file: there is nothing to wait on
        }
    }

    private Path stdout() {
        return logDir.resolve(id + "." + starts + ".out");
    }

    /** The address clients reach this node at (changes with every start). */
    public InetSocketAddress clientAddress() {
        return new InetSocketAddress("127.0.0.1", quicPort);
    }

    /**
     * Its admin HTTP address ({@code /metrics}; changes with every start), or null if the banner did not name
     * one.
     */
    public InetSocketAddress httpAddress() {
        return httpPort < 0 ? null : new InetSocketAddress("127.0.0.1", httpPort);
    }

    /**
     * Its {@code /metrics} (Prometheus text), read from {@link #httpAddress()}: 3 s to connect, 5 s to answer (a
     * frozen node never does).
     *
     * @throws IOException when the banner named no admin address, or the node did not answer in time
     */
    public String metricsText() throws IOException, InterruptedException {
        InetSocketAddress admin = httpAddress();
        if (admin == null) {
            throw new IOException("node " + id + " did not name its admin address");
        }
        return METRICS_HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.getPort() + "/metrics"))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    /**
     * Whether it says it leads the cluster's metadata Raft group ({@code felix_raft_leader 1} in its
     * {@link #metricsText()}). A leader deposed while frozen says so until it hears of its successor.
     */
    public boolean saysItLeadsMetadata() throws IOException, InterruptedException {
        return java.util.regex.Pattern.compile("(?m)^felix_raft_leader 1(\\.0)?$").matcher(metricsText()).find();
    }

    /** Its Raft endpoint ({@code host:port}; kept across restarts). */
    public String raftAddress() {
        return raftAddress;
    }

    /** The node id. */
    public String id() {
        return id;
    }

    public long pid() {
        return process.pid();
    }

    public boolean alive() {
        return process != null && process.isAlive();
    }

    public boolean frozen() {
        return frozen;
    }

    /** SIGSTOP: the process stops running (its sockets stay open, it answers nothing) until {@link #thaw()}. */
    public void freeze() throws IOException, InterruptedException {
        signal("STOP");
        frozen = true;
    }

    /** SIGCONT. */
    public void thaw() throws IOException, InterruptedException {
        signal("CONT");
        frozen = false;
    }

    /** SIGKILL: nothing is flushed, no hand-off. Returns once the process is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
        frozen = false;
    }

    /** SIGTERM (a clean stop: leaderships are handed off), then up to 60 s for it to exit, then SIGKILL. */
    public void stop() throws InterruptedException, IOException {
        if (frozen) {
            thaw();
        }
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor();
        }
    }

    private void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + name + " " + process.pid() + " failed");
        }
    }

    private static String tail(Path file) {
        try {
            String text = Files.readString(file);
            return text.length() > 2000 ? "..." + text.substring(text.length() - 2000) : text;
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    /** Kills the process if it still runs (thawing it first). */
    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            if (frozen) {
                try {
                    thaw();
                } catch (IOException | InterruptedException e) {
                    // killed below anyway
                }
            }
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return id + (alive() ? (frozen ? " (frozen)" : " (pid " + pid() + ")") : " (down)");
    }
}
