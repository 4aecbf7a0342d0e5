package dev.felix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.server.FelixServer;
import dev.felix.server.config.ConfigLoader;
import dev.felix.transport.TlsMaterial;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a person typing {@code felix ...} sees, through the real launcher script against a real broker:
 * exit statuses, one-line errors that name the flag and the way out, values shown in the units the
 * options accept.
 */
@Timeout(240)
class CliLauncherTest {

    @TempDir
    Path dir;

    private FelixServer server;
    private Launcher felix;
    private List<String> common;

    @BeforeEach
    void start() throws Exception {
        server = FelixServer.start(ConfigLoader.load(null, Map.of(), Map.of("data_dir", dir.resolve("data").toString(),
                "quic_bind", "127.0.0.1:0", "http_bind", "127.0.0.1:0")));
        felix = new Launcher(dir, Map.of());
        common = List.of("--broker", "127.0.0.1:" + server.quicAddress().getPort(),
                "--ca", server.certificateFile().toString());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private String[] args(String... a) {
        List<String> all = new ArrayList<>(List.of(a));
        all.addAll(common);
        return all.toArray(String[]::new);
    }

    // ------------------------------------------------------------------ item 2

    @Test
    void cacheWatch_withoutCount_watchesUntilInterrupted() throws Exception {
        assertThat(felix.run(args("cache", "put", "t1/ops/w", "a", "1")).code()).isZero();
        Process watch = felix.start(args("cache", "watch", "t1/ops/w"));
        try {
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() ->
                    !watch.isAlive() || Launcher.read(Launcher.out(watch)).contains("snapshot\tput\ta\t1"));
            assertThat(watch.isAlive()).as(Launcher.read(Launcher.err(watch))).isTrue();
            assertThat(felix.run(args("cache", "put", "t1/ops/w", "b", "2")).code()).isZero();
            assertThat(felix.run(args("cache", "delete", "t1/ops/w", "a")).code()).isZero();
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
                    Launcher.read(Launcher.out(watch)).contains("2\tdelete\ta"));
            assertThat(Launcher.read(Launcher.out(watch))).isEqualTo("snapshot\tput\ta\t1\n1\tput\tb\t2\n2\tdelete\ta\n");
            assertThat(watch.isAlive()).as("still watching after the changes").isTrue();
        } finally {
            watch.destroy();
            Launcher.await(watch, Duration.ofSeconds(30));
        }
        assertThat(Launcher.read(Launcher.err(watch))).doesNotContain("Exception");
    }

    // ------------------------------------------------------------------ item 3

    @Test
    void numericOptions_outOfRange_areUsageErrorsNamingTheFlagAndTheRange() {
        record Case(List<String> argv, String flag, String range) {
        }
        List<Case> cases = List.of(
                new Case(List.of("sub", "t1/default/s", "--from", "-5"), "--from", "[0, 2^63-1]"),
                new Case(List.of("sub", "t1/default/s", "--count", "0"), "--count", "[1, 2^63-1]"),
                new Case(List.of("sub", "t1/default/s", "--shard", "-1"), "--shard", "[0, 2147483647]"),
                new Case(List.of("stream", "create", "t1/default/d", "--durable", "--retention-bytes", "-5"),
                        "--retention-bytes", "[1, 2^63-1]"),
                new Case(List.of("stream", "create", "t1/default/d", "--shards", "0"), "--shards", "[1, 1024]"),
                new Case(List.of("cache", "create", "t1/default/c", "--max-entries", "-1"), "--max-entries",
                        "[1, 2147483647]"),
                new Case(List.of("cache", "watch", "t1/default/c", "--count", "-3"), "--count", "[1, 2^63-1]"));
        for (Case c : cases) {
            Launcher.Result r = felix.run(args(c.argv.toArray(String[]::new)));
            assertThat(r.code()).as(c.argv + "\n" + r).isEqualTo(2);
            assertThat(r.err()).as(c.argv.toString()).contains(c.flag).contains(c.range)
                    .doesNotContain("Exception").doesNotContain("18446744073709551");
        }
        assertThat(server.broker().streams()).as("nothing reached the broker").isEmpty();
    }

    // ------------------------------------------------------------------ item 5

    @Test
    void ttls_mustBePositiveWithAUnit_andTheErrorNamesTtl() throws Exception {
        for (String ttl : List.of("-5s", "0s", "0", "5", "5w")) {
            for (List<String> argv : List.of(List.of("cache", "put", "t1/default/c", "k", "v", "--ttl", ttl),
                    List.of("cache", "create", "t1/default/c", "--ttl", ttl))) {
                Launcher.Result r = felix.run(args(argv.toArray(String[]::new)));
                assertThat(r.code()).as(argv + "\n" + r).isEqualTo(2);
                assertThat(r.err()).as(argv.toString()).contains("--ttl").doesNotContain("--retention-age");
            }
        }
        assertThat(server.broker().caches().find(new dev.felix.core.cache.CacheName("t1", "default", "c"))).isEmpty();
        Launcher.Result ok = felix.run(args("cache", "put", "t1/default/c", "k", "v", "--ttl", "10m"));
        assertThat(ok.code()).as(ok.toString()).isZero();
        assertThat(felix.run(args("cache", "get", "t1/default/c", "k")).out()).isEqualTo("v\n");
    }

    // ------------------------------------------------------------------ item 8

    @Test
    void trustProblems_sayWhatToFix() throws Exception {
        String broker = "127.0.0.1:" + server.quicAddress().getPort();
        Launcher.Result malformed = felix.run("pub", "t1/default/x", "hi", "--broker", broker, "--fingerprint", "zz");
        assertThat(malformed.code()).as(malformed.toString()).isEqualTo(2);
        assertThat(malformed.err()).contains("--fingerprint").contains("64 hex digits").doesNotContain("Exception");

        Launcher.Result wrongPin = felix.run("pub", "t1/default/x", "hi", "--broker", broker, "--fingerprint",
                "00".repeat(32));
        assertThat(wrongPin.code()).as(wrongPin.toString()).isEqualTo(1);
        assertThat(wrongPin.err()).contains("untrusted").contains("--fingerprint").contains("'cert' line");

        Path other = dir.resolve("other");
        TlsMaterial.generateSelfSigned(List.of()).writePem(other);
        Launcher.Result wrongCa = felix.run("pub", "t1/default/x", "hi", "--broker", broker, "--ca",
                other.resolve(TlsMaterial.CERT_FILE).toString());
        assertThat(wrongCa.code()).as(wrongCa.toString()).isEqualTo(1);
        assertThat(wrongCa.err()).contains("untrusted").contains("--ca FILE").contains("cert.pem");

        Launcher.Result unresolvable = felix.run("pub", "t1/default/x", "hi", "--broker", "no-such-host.invalid:5000",
                "--ca", server.certificateFile().toString());
        assertThat(unresolvable.code()).as(unresolvable.toString()).isEqualTo(1);
        assertThat(unresolvable.err()).contains("cannot resolve the broker host 'no-such-host.invalid'")
                .contains("--broker").doesNotContain("NullPointerException").doesNotContain("null");

        Launcher.Result badAddress = felix.run("pub", "t1/default/x", "hi", "--broker", "localhost");
        assertThat(badAddress.code()).isEqualTo(2);
        assertThat(badAddress.err()).contains("--broker").contains("HOST:PORT");
    }

    // ------------------------------------------------------------------ item 10

    @Test
    void authMode_aMissingOrRefusedTokenNamesTokenAndFelixToken() throws Exception {
        try (FelixServer secured = FelixServer.start(ConfigLoader.load(null, Map.of(), Map.of(
                "data_dir", dir.resolve("secured").toString(), "quic_bind", "127.0.0.1:0", "http_bind", "127.0.0.1:0",
                "auth_tokens", "t1=s3cret")))) {
            String[] where = {"--broker", "127.0.0.1:" + secured.quicAddress().getPort(), "--ca",
                secured.certificateFile().toString()};
            Launcher.Result missing = felix.run(concat(List.of("pub", "t1/default/x", "hi"), where));
            assertThat(missing.code()).as(missing.toString()).isEqualTo(1);
            assertThat(missing.err()).contains("unauthorized").contains("no token was given")
                    .contains("--token TOKEN").contains("FELIX_TOKEN");

            Launcher.Result wrong = felix.run(concat(List.of("pub", "t1/default/x", "hi", "--token", "guess"), where));
            assertThat(wrong.code()).as(wrong.toString()).isEqualTo(1);
            assertThat(wrong.err()).contains("refused the token").contains("--token").contains("FELIX_TOKEN");

            Launcher.Result viaEnv = new Launcher(dir, Map.of("FELIX_TOKEN", "s3cret")).run(
                    concat(List.of("stream", "create", "t1/default/x"), where));
            assertThat(viaEnv.code()).as(viaEnv.toString()).isZero();
        }
    }

    private static String[] concat(List<String> a, String[] b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(List.of(b));
        return all.toArray(String[]::new);
    }

    // ------------------------------------------------------------------ item 9

    @Test
    void logTools_aPathWithoutLogsIsAnError_andADataDirectoryIsUnderstood() throws Exception {
        assertThat(felix.run(args("stream", "create", "t1/ops/ledger", "--durable")).code()).isZero();
        assertThat(felix.run(args("pub", "t1/ops/ledger", "a", "b")).code()).isZero();
        server.close();

        Path empty = Files.createDirectories(dir.resolve("etc-like/sub"));
        Files.writeString(empty.resolve("passwd"), "root:x:0:0");
        for (String tool : List.of("verify", "inspect")) {
            Launcher.Result r = felix.run("log", tool, dir.resolve("etc-like").toString());
            assertThat(r.code()).as(r.toString()).isEqualTo(2);
            assertThat(r.err()).contains("no log found in").contains("DATA_DIR/logs");
            assertThat(r.out()).doesNotContain("CLEAN");
        }
        // The data directory itself (as `felix log inspect data` is typed): its logs are found.
        Launcher.Result inspect = felix.run("log", "inspect", "data");
        assertThat(inspect.code()).as(inspect.toString()).isZero();
        assertThat(inspect.out()).contains("t1_ops_ledger_0").contains("2 records");
        Launcher.Result verify = felix.run("log", "verify", "data");
        assertThat(verify.code()).as(verify.toString()).isZero();
        assertThat(verify.out()).contains("CLEAN: 1 log(s)");
    }

    // ------------------------------------------------------------------ item 14

    @Test
    void durationsPrintInTheUnitsTheOptionsTake_andDeletingAMissingKeySaysSo() {
        Launcher.Result created = felix.run(args("stream", "create", "t1/ops/ledger", "--durable", "--fsync",
                "on_commit", "--retention-bytes", "1000000", "--retention-age", "7d"));
        assertThat(created.code()).as(created.toString()).isZero();
        assertThat(created.out()).contains("retention  1000000 bytes per shard, 7d").doesNotContain("PT");
        Launcher.Result cache = felix.run(args("cache", "create", "t1/ops/cfg", "--ttl", "90m"));
        assertThat(cache.out()).contains("ttl        1h30m").doesNotContain("PT");

        assertThat(felix.run(args("cache", "put", "t1/ops/cfg", "k", "v")).out()).isEqualTo("0\n");
        Launcher.Result deleted = felix.run(args("cache", "delete", "t1/ops/cfg", "k"));
        assertThat(deleted.code()).isZero();
        assertThat(deleted.out()).isEqualTo("1\n");
        Launcher.Result again = felix.run(args("cache", "delete", "t1/ops/cfg", "k"));
        assertThat(again.code()).as(again.toString()).isEqualTo(4);
        assertThat(again.out()).isEmpty();
        assertThat(again.err()).contains("k is not set in t1/ops/cfg");
        Launcher.Result get = felix.run(args("cache", "get", "t1/ops/cfg", "k"));
        assertThat(get.code()).isEqualTo(4);
    }

    // ------------------------------------------------------------------ item 13

    @Test
    void version_printsTheBuildsVersion() {
        Launcher.Result r = felix.run("--version");
        assertThat(r.code()).isZero();
        assertThat(r.out()).startsWith("felix 0.").contains("(commit ").doesNotContain("development");
    }

    @Test
    void launcher_runsOnTheNewestJdkOf21OrLaterItFinds() throws Exception {
        Launcher.Result r = felix.run("--version");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).as("the JDK the launcher should choose on this machine")
                .containsPattern("Java " + JdkChoice.expectedFeature() + "[.+-]");
    }

    @Test
    void felixJavaHome_choosesTheJdkOutright() {
        // This test's own JDK (17 under .ci/run), which the launcher would not choose by itself where a 21+ is installed.
        Launcher own = new Launcher(dir, Map.of("FELIX_JAVA_HOME", System.getProperty("java.home")));
        Launcher.Result r = own.run("--version");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).containsPattern("Java " + Runtime.version().feature() + "[.+-]");

        Launcher.Result bad = new Launcher(dir, Map.of("FELIX_JAVA_HOME", dir.resolve("no-jdk").toString())).run("--version");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.out()).isEmpty();
        assertThat(bad.err()).contains("FELIX_JAVA_HOME=" + dir.resolve("no-jdk")).contains("has no bin/java");
    }

    @Test
    void launcher_asksForHugeHeapPages_withZgc_andOnlyWhereTheKernelLendsThemToSharedMemory() throws Exception {
        Path advise = Files.writeString(dir.resolve("shmem-advise"), "always within_size [advise] never deny force\n");
        Path never = Files.writeString(dir.resolve("shmem-never"), "always within_size advise [never] deny force\n");
        String huge = "-XX:+UseTransparentHugePages";
        if (JdkChoice.expectedFeature() >= 21) { // the launcher runs ZGC there
            assertThat(javaCommand(advise, "-Xmx256m", "server")).contains("-XX:+UseZGC", huge);
            assertThat(javaCommand(advise, "-Xmx256m", "bench")).contains("-XX:+UseZGC", huge);
            assertThat(javaCommand(never, "-Xmx256m", "server")).contains("-XX:+UseZGC").doesNotContain(huge);
            assertThat(javaCommand(dir.resolve("no-such-file"), "-Xmx256m", "server")).contains("-XX:+UseZGC")
                    .doesNotContain(huge);
            // An operator's own choice wins: to turn them off, or by choosing the collector.
            assertThat(javaCommand(advise, "-XX:-UseTransparentHugePages", "server"))
                    .contains("-XX:+UseZGC", "-XX:-UseTransparentHugePages").doesNotContain(huge);
            assertThat(javaCommand(advise, "-XX:+UseG1GC", "server")).doesNotContain(huge, "-XX:+UseZGC");
        } else {
            assertThat(javaCommand(advise, "-Xmx256m", "server")).contains("-XX:+UseG1GC").doesNotContain(huge);
        }
        assertThat(javaCommand(advise, "-Xmx256m", "--version")).as("a CLI command, not a broker").doesNotContain(huge);
    }

    @Test
    void launcher_letsNettyUseUnsafe_onJdk24And25Only_unlessTheOperatorSaidOtherwise() throws Exception {
        Path advise = Files.writeString(dir.resolve("shmem-advise"), "always within_size [advise] never deny force\n");
        String allow = "--sun-misc-unsafe-memory-access=allow";
        int feature = JdkChoice.expectedFeature();
        if (feature >= 24 && feature <= 25) {
            assertThat(javaCommand(advise, "-Xmx256m", "server")).contains(allow);
            assertThat(javaCommand(advise, "-Xmx256m", "bench")).contains(allow);
            assertThat(javaCommand(advise, "-Xmx256m", "--version")).as("clients use Netty too").contains(allow);
            assertThat(javaCommand(advise, "--sun-misc-unsafe-memory-access=deny", "server"))
                    .contains("--sun-misc-unsafe-memory-access=deny").doesNotContain(allow);
            assertThat(javaCommand(advise, "-Dio.netty.noUnsafe=true", "server")).doesNotContain(allow);
        } else {
            assertThat(javaCommand(advise, "-Xmx256m", "server")).as("JDK " + feature).doesNotContain(allow);
        }
    }

    @Test
    void launcher_letsNettyAllocateDirectMemoryItself_unlessTheOperatorSaidOtherwise() throws Exception {
        Path advise = Files.writeString(dir.resolve("shmem-advise"), "always within_size [advise] never deny force\n");
        String opens = "--add-opens=java.base/java.nio=ALL-UNNAMED";
        String reflect = "-Dio.netty.tryReflectionSetAccessible=true";
        assertThat(javaCommand(advise, "-Xmx256m", "server")).contains(opens, reflect);
        assertThat(javaCommand(advise, "-Xmx256m", "bench")).contains(opens, reflect);
        assertThat(javaCommand(advise, "-Xmx256m", "--version")).as("clients use Netty too").contains(opens, reflect);
        assertThat(javaCommand(advise, "-Dio.netty.tryReflectionSetAccessible=false", "server"))
                .contains("-Dio.netty.tryReflectionSetAccessible=false").doesNotContain(opens, reflect);
    }

    /** The JVM command line the launcher would run for {@code command}, one word per element. */
    private List<String> javaCommand(Path shmemSetting, String javaOpts, String command) {
        Launcher.Result r = new Launcher(dir, Map.of("FELIX_PRINT_JAVA_COMMAND", "1", "FELIX_THP_SHMEM_SETTING",
                shmemSetting.toString(), "FELIX_JAVA_OPTS", javaOpts)).run(command);
        assertThat(r.code()).as(r.toString()).isZero();
        return r.out().lines().toList();
    }

    @Test
    void readmeSequence_fromAnOffsetWorksWhenRunInOrder() throws Exception {
        // The README's quickstart, then the pub/sub lines of its "More commands" block, in order, as typed.
        Launcher readme = new Launcher(dir, Map.of("FELIX_BROKER", "127.0.0.1:" + server.quicAddress().getPort(),
                "FELIX_CA", server.certificateFile().toString()));
        assertThat(readme.run("pub", "t1/default/demo", "hello").code()).isZero();
        String text = Files.readString(Launcher.SCRIPT.resolveSibling("README.md"));
        String block = text.substring(text.indexOf("```bash", text.indexOf("More commands")));
        block = block.substring(0, block.indexOf("```", 7));
        List<String> lines = block.lines().map(l -> l.replaceAll("\\s+#.*$", ""))
                .filter(l -> l.matches("(seq .*\\| )?\\./felix (pub|sub) .*")).toList();
        assertThat(lines).hasSize(3);
        List<String> outputs = new ArrayList<>();
        for (String line : lines) {
            Launcher.Result r = readme.shell(line);
            assertThat(r.code()).as(line + "\n" + r).isZero();
            outputs.add(r.out());
        }
        assertThat(outputs.get(1)).isEqualTo("0\thello\n1\t1\n2\t2\n");
        assertThat(outputs.get(2)).isEqualTo("42\t42\n");
    }
}
