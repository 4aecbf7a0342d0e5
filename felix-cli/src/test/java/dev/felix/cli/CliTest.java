package dev.felix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.server.FelixServer;
import dev.felix.server.TestBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The felix commands against a real broker, run in-process; stdout and stderr are captured. */
@Timeout(60)
class CliTest {

    @TempDir
    Path dir;

    private TestBroker broker;
    private FelixServer server;
    private List<String> common;

    @BeforeEach
    void start() throws Exception {
        broker = TestBroker.start(dir);
        server = broker.server();
        common = List.of("--broker", "127.0.0.1:" + server.quicAddress().getPort(),
                "--ca", server.certificateFile().toString());
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    @Test
    void quickstart_subPrintsOffsetTabPayload() throws Exception {
        // The subscriber waits for the next event (from latest); the publisher runs once it is subscribed.
        CompletableFuture<InProcessCli.Result> sub = CompletableFuture.supplyAsync(
                () -> run(null, args("sub", "t1/default/demo", "--count", "1")));
        org.awaitility.Awaitility.await().until(() -> server.broker().find(
                new dev.felix.core.StreamName("t1", "default", "demo"))
                .map(s -> s.info().shards().get(0).subscribers()).orElse(0) == 1);
        try (var client = broker.connect()) {
            client.publisher(dev.felix.client.StreamRef.parse("t1/default/demo")).publish(
                    "hello".getBytes(StandardCharsets.UTF_8));
        }
        InProcessCli.Result result = sub.get(30, TimeUnit.SECONDS);
        assertThat(result.code()).isZero();
        assertThat(result.out()).isEqualTo("0\thello\n");
    }

    @Test
    void pub_readsStdinLinesWhenNoMessagesAreGiven() {
        assertThat(run("a\nb\nc\n", args("pub", "t1/default/lines")).code()).isZero();
        InProcessCli.Result sub = run(null, args("sub", "t1/default/lines", "--from", "earliest", "--count", "3"));
        assertThat(sub.out()).isEqualTo("0\ta\n1\tb\n2\tc\n");
    }

    @Test
    void sub_fromAnOffsetResumesThere() {
        run(null, args("pub", "t1/default/resume", "m0", "m1", "m2", "m3"));
        assertThat(run(null, args("sub", "t1/default/resume", "--from", "2", "--count", "2")).out())
                .isEqualTo("2\tm2\n3\tm3\n");
    }

    @Test
    void sub_pastTheTail_failsWithTheCode() {
        run(null, args("pub", "t1/default/tail", "only"));
        InProcessCli.Result r = run(null, args("sub", "t1/default/tail", "--from", "9", "--count", "1"));
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("cursor_in_future").contains("next offset is 1");
    }

    @Test
    void streamCreateListDescribe() {
        InProcessCli.Result created = run(null, args("stream", "create", "t1/ops/orders", "--shards", "3"));
        assertThat(created.code()).isZero();
        assertThat(created.out()).contains("t1/ops/orders").contains("shards     3");
        assertThat(run(null, args("stream", "list", "t1")).out()).contains("t1/ops/orders").contains("ephemeral");
        assertThat(run(null, args("stream", "describe", "t1/ops/orders")).out())
                .contains("SHARD").contains("ephemeral");
        InProcessCli.Result missing = run(null, args("stream", "describe", "t1/ops/nope"));
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.err()).contains("not_found");
    }

    @Test
    void durableStream_createPublishAndLogTools() throws Exception {
        InProcessCli.Result created = run(null, args("stream", "create", "t1/ops/ledger", "--durable", "--fsync", "on_commit",
                "--retention-bytes", "1000000", "--retention-age", "7d"));
        assertThat(created.code()).isZero();
        assertThat(created.out()).contains("durable (fsync on_commit)").contains("1000000 bytes").contains(", 7d");
        assertThat(run(null, args("pub", "t1/ops/ledger", "a", "b")).code()).isZero();
        assertThat(run(null, args("sub", "t1/ops/ledger", "--from", "earliest", "--count", "2")).out())
                .isEqualTo("0\ta\n1\tb\n");
        Path logs = dir.resolve("logs");
        InProcessCli.Result inspect = run(null, "log", "inspect", logs.toString());
        assertThat(inspect.code()).isZero();
        assertThat(inspect.out()).contains("t1_ops_ledger_0").contains("00000000000000000000.log");
        InProcessCli.Result verify = run(null, "log", "verify", logs.toString());
        assertThat(verify.code()).isZero();
        assertThat(verify.out()).contains("CLEAN");
        InProcessCli.Result notADir = run(null, "log", "verify", dir.resolve("nope").toString());
        assertThat(notADir.code()).isEqualTo(2);
        InProcessCli.Result badAge = run(null, args("stream", "create", "t1/ops/x", "--durable", "--retention-age", "7w"));
        assertThat(badAge.code()).isEqualTo(2);
        assertThat(badAge.err()).contains("--retention-age");
    }

    @Test
    void logVerify_reportsCorruptionWithFileAndPositionAndFails() throws Exception {
        run(null, args("stream", "create", "t1/ops/broken", "--durable"));
        run(null, args("pub", "t1/ops/broken", "first", "second", "third"));
        broker.close();
        Path segment;
        try (var files = java.nio.file.Files.walk(dir.resolve("logs"))) {
            segment = files.filter(f -> f.toString().contains("broken") && f.toString().endsWith(".log"))
                    .findFirst().orElseThrow();
        }
        try (var f = new java.io.RandomAccessFile(segment.toFile(), "rw")) {
            f.seek(40); // inside the first record
            int b = f.read();
            f.seek(40);
            f.write(b ^ 0xFF);
        }
        InProcessCli.Result verify = run(null, "log", "verify", dir.resolve("logs").toString());
        assertThat(verify.code()).isEqualTo(1);
        assertThat(verify.out()).contains("CORRUPT").contains("00000000000000000000.log @32"); // file @ byte position
        broker = TestBroker.start(dir); // for @AfterEach
    }

    @Test
    void cacheCommands_createPutGetDeleteDescribe() {
        InProcessCli.Result created = run(null, args("cache", "create", "t1/ops/config", "--max-entries", "10", "--ttl", "10m"));
        assertThat(created.code()).isZero();
        assertThat(created.out()).contains("backing    memory").contains("capacity   10 entries").contains("ttl        10m");
        assertThat(run(null, args("cache", "put", "t1/ops/config", "routing", "v1")).out()).isEqualTo("0\n");
        assertThat(run(null, args("cache", "put", "t1/ops/config", "policy", "p1")).out()).isEqualTo("1\n");
        assertThat(run(null, args("cache", "get", "t1/ops/config", "routing")).out()).isEqualTo("v1\n");
        assertThat(run(null, args("cache", "delete", "t1/ops/config", "routing")).out()).isEqualTo("2\n");
        InProcessCli.Result missing = run(null, args("cache", "get", "t1/ops/config", "routing"));
        assertThat(missing.code()).isEqualTo(4);
        assertThat(run(null, args("cache", "describe", "t1/ops/config")).out()).contains("entries    1")
                .contains("next       3");
    }

    @Test
    void cacheConsistency_aSingleNodeRefusesQuorumWithTheBrokersReason_andBadFlagsAreUsageErrors() {
        InProcessCli.Result refused = run(null, args("cache", "create", "t1/ops/ledger", "--backing", "log",
                "--consistency", "quorum"));
        assertThat(refused.code()).isEqualTo(Errors.FAILED);
        assertThat(refused.err()).contains("bad_request").contains("consistency quorum needs a cluster")
                .contains("--cluster-bootstrap");

        InProcessCli.Result memory = run(null, args("cache", "create", "t1/ops/ledger", "--consistency", "quorum"));
        assertThat(memory.code()).isEqualTo(Errors.USAGE);
        assertThat(memory.err()).contains("--consistency quorum applies to log-backed caches only")
                .contains("add --backing log");
        InProcessCli.Result unknown = run(null, args("cache", "create", "t1/ops/ledger", "--backing", "log",
                "--consistency", "eventual"));
        assertThat(unknown.code()).isEqualTo(Errors.USAGE);
        assertThat(unknown.err()).contains("--consistency").contains("expected leader or quorum");

        InProcessCli.Result leader = run(null, args("cache", "create", "t1/ops/ledger", "--backing", "log",
                "--consistency", "leader"));
        assertThat(leader.code()).as(leader.err()).isZero();
        assertThat(leader.out()).contains("consistency leader");
        assertThat(run(null, args("cache", "describe", "t1/ops/ledger")).out()).contains("consistency leader");
        assertThat(run(null, args("cache", "list", "t1/ops")).out()).contains("CONSISTENCY").contains("leader");
    }

    @Test
    void cacheWatch_printsTheSnapshotThenChanges() throws Exception {
        run(null, args("cache", "put", "t1/ops/watched", "a", "1"));
        CompletableFuture<InProcessCli.Result> watch = CompletableFuture.supplyAsync(
                () -> run(null, args("cache", "watch", "t1/ops/watched", "--count", "1")));
        org.awaitility.Awaitility.await().until(() -> server.broker().caches()
                .find(new dev.felix.core.cache.CacheName("t1", "ops", "watched"))
                .map(c -> c.info().watchers()).orElse(0) == 1);
        try (var client = broker.connect();
                var cache = client.cache(dev.felix.client.CacheRef.parse("t1/ops/watched"))) {
            cache.put("b", "2".getBytes(StandardCharsets.UTF_8), null);
        }
        InProcessCli.Result r = watch.get(30, TimeUnit.SECONDS);
        assertThat(r.code()).isZero();
        assertThat(r.out()).isEqualTo("snapshot\tput\ta\t1\n1\tput\tb\t2\n");
    }

    @Test
    void streamDelete_andCacheListAndDrop() {
        run(null, args("stream", "create", "t1/ops/gone", "--durable"));
        run(null, args("pub", "t1/ops/gone", "a"));
        InProcessCli.Result deleted = run(null, args("stream", "delete", "t1/ops/gone"));
        assertThat(deleted.code()).isZero();
        assertThat(deleted.out()).isEqualTo("deleted stream t1/ops/gone\n");
        assertThat(run(null, args("stream", "list", "t1")).out()).doesNotContain("t1/ops/gone");
        InProcessCli.Result again = run(null, args("stream", "delete", "t1/ops/gone"));
        assertThat(again.code()).isEqualTo(Errors.FAILED);
        assertThat(again.err()).contains("not_found");

        run(null, args("cache", "create", "t1/ops/c1", "--backing", "log"));
        run(null, args("cache", "create", "t1/ops/c2", "--ttl", "90s"));
        InProcessCli.Result listed = run(null, args("cache", "list", "t1/ops"));
        assertThat(listed.out()).contains("t1/ops/c1", "log", "t1/ops/c2", "memory", "90s");
        assertThat(run(null, args("cache", "drop", "t1/ops/c1")).out()).isEqualTo("dropped cache t1/ops/c1\n");
        assertThat(run(null, args("cache", "list", "t1")).out()).doesNotContain("t1/ops/c1").contains("t1/ops/c2");
        assertThat(run(null, args("cache", "list", "t9")).out()).contains("(no caches)");
    }

    @Test
    void badArguments_areUsageErrorsWithClearMessages() {
        InProcessCli.Result r = run(null, "pub", "not-a-stream", "x", "--ca", server.certificateFile().toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("TENANT/NAMESPACE/STREAM");
        InProcessCli.Result noCa = run(null, "pub", "t1/default/x", "hi", "--ca", dir.resolve("missing.pem").toString());
        assertThat(noCa.code()).isEqualTo(2);
        assertThat(noCa.err()).contains("does not exist");
        InProcessCli.Result unreachable = run(null, "pub", "t1/default/x", "hi", "--broker", "127.0.0.1:1",
                "--ca", server.certificateFile().toString());
        assertThat(unreachable.code()).isEqualTo(1);
        assertThat(unreachable.err()).contains("connection_lost").contains("is a broker running at 127.0.0.1:1?");
    }

    @Test
    void help_readsWellEverywhere() {
        for (String[] cmd : new String[][] {{"--help"}, {"server", "--help"}, {"pub", "--help"}, {"sub", "--help"},
                {"stream", "create", "--help"}}) { // bench: felix-bench.jar (BenchCliTest, BenchStubTest)
            InProcessCli.Result r = run(null, cmd);
            assertThat(r.code()).as(String.join(" ", cmd)).isZero();
            assertThat(r.out()).as(String.join(" ", cmd)).contains("Usage:");
        }
    }

    // ------------------------------------------------------------------ harness

    private String[] args(String... a) {
        List<String> all = new ArrayList<>(List.of(a));
        all.addAll(common);
        return all.toArray(String[]::new);
    }

    private static InProcessCli.Result run(String stdin, String... args) {
        return InProcessCli.runWithInput(stdin, args);
    }
}
