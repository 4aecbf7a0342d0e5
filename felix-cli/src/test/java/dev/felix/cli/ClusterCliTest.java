package dev.felix.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.cluster.NodeInfo;
import dev.felix.server.FelixServer;
import dev.felix.server.config.ConfigLoader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster as the CLI shows it, against three nodes in this JVM: {@code felix cluster ca} makes the CA the
 * nodes start with; {@code stream create --replicas 3 --consistency quorum}; {@code pub} with several
 * {@code --broker} nodes reaches the shard's leader from any of them, while one follower alone answers
 * {@code not_leader} naming the leader; {@code sub} reads the records back; {@code cluster status} lists the
 * members, the shard, its leader and its followers' lag.
 */
@Timeout(180)
class ClusterCliTest {

    @TempDir
    Path dir;

    private final Map<String, FelixServer> nodes = new LinkedHashMap<>();

    @AfterEach
    void stop() {
        nodes.values().forEach(FelixServer::close);
    }

    @Test
    void createPublishSubscribeAndStatus_throughTheCli() throws Exception {
        Path caDir = dir.resolve("ca");
        Result ca = run("cluster", "ca", caDir.toString());
        assertThat(ca.code()).as(ca.err()).isZero();
        assertThat(caDir.resolve("ca.pem")).exists();
        assertThat(caDir.resolve("ca.key")).exists();

        FelixServer n1 = start("n1", caDir, null);
        String raft = n1.cluster().node("n1").map(NodeInfo::raftAddress).orElseThrow();
        start("n2", caDir, raft);
        start("n3", caDir, raft);
        await().atMost(Duration.ofSeconds(30)).until(() -> n1.cluster().nodes().stream().filter(NodeInfo::up).count() == 3);
        String trust = caDir.resolve("ca.pem").toString();

        Result created = run("stream", "create", "t1/default/orders", "--durable", "--replicas", "3", "--consistency",
                "quorum", "--broker", address("n2"), "--ca", trust);
        assertThat(created.code()).as(created.err()).isZero();
        String leader = n1.cluster().placements().get(0).leader();
        String follower = nodes.keySet().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();

        // One follower alone: the publish is refused and the leader named.
        Result refused = run("pub", "t1/default/orders", "x", "--broker", address(follower), "--ca", trust);
        assertThat(refused.code()).isNotZero();
        assertThat(refused.err()).contains("publish failed").contains(leader);

        // Every node listed, the follower first: each message reaches the leader.
        List<String> all = new ArrayList<>(List.of(address(follower)));
        nodes.keySet().stream().filter(id -> !id.equals(follower)).forEach(id -> all.add(address(id)));
        Result published = await().atMost(Duration.ofSeconds(30)).until(() -> run("pub", "t1/default/orders", "m0",
                "m1", "m2", "-v", "--broker", String.join(",", all), "--ca", trust), r -> r.code() == 0);
        assertThat(published.err()).contains("offset 0").contains("offset 2");

        Result read = run("sub", "t1/default/orders", "--from", "earliest", "--count", "3", "--broker",
                address(leader), "--ca", trust);
        assertThat(read.code()).as(read.err()).isZero();
        assertThat(read.out()).contains("m0").contains("m1").contains("m2");

        Result status = run("cluster", "status", "--broker", address(follower), "--ca", trust);
        assertThat(status.code()).as(status.err()).isZero();
        assertThat(status.out()).contains("n1").contains("n2").contains("n3").contains("up")
                .contains("t1/default/orders").contains("quorum").contains(leader);
    }

    private String address(String id) {
        return "127.0.0.1:" + nodes.get(id).quicAddress().getPort();
    }

    private FelixServer start(String id, Path ca, String join) throws Exception {
        Map<String, String> flags = new HashMap<>();
        flags.put("data_dir", dir.resolve(id).toString());
        flags.put("quic_bind", "127.0.0.1:0");
        flags.put("http_bind", "127.0.0.1:0");
        flags.put("node_id", id);
        flags.put("raft_bind", "127.0.0.1:0");
        flags.put("cluster_ca_cert", ca.resolve("ca.pem").toString());
        flags.put("cluster_ca_key", ca.resolve("ca.key").toString());
        if (join == null) {
            flags.put("cluster_bootstrap", "true");
        } else {
            flags.put("cluster_join", join);
        }
        FelixServer server = FelixServer.start(ConfigLoader.load(null, Map.of(), flags));
        nodes.put(id, server);
        return server;
    }

    record Result(int code, String out, String err) {
    }

    private static synchronized Result run(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int code = FelixCommand.execute(args);
            return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }
}
