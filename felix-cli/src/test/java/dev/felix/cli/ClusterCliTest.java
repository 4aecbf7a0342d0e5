package dev.felix.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.cluster.tls.ClusterTls;
import dev.felix.server.FelixServer;
import dev.felix.server.cluster.TestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster as the CLI shows it, against three nodes in this JVM: {@code felix cluster ca} makes the CA the
 * nodes start with; {@code stream create --replicas 3 --consistency quorum}; {@code pub} with several
 * {@code --broker} nodes reaches the shard's leader from any of them, while one follower alone answers
 * {@code not_leader} naming the leader; {@code sub} reads the records back; {@code cache create --backing log
 * --consistency quorum} and {@code cache describe} show the cache's consistency; {@code cluster status} lists the
 * members, the shard and the cache, their leaders and their followers' lag.
 */
@Timeout(180)
class ClusterCliTest {

    @TempDir
    Path dir;

    private TestCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void createPublishSubscribeAndStatus_throughTheCli() throws Exception {
        Path caDir = dir.resolve("ca");
        InProcessCli.Result ca = run("cluster", "ca", caDir.toString());
        assertThat(ca.code()).as(ca.err()).isZero();
        assertThat(caDir.resolve("ca.pem")).exists();
        assertThat(caDir.resolve("ca.key")).exists();

        cluster = TestCluster.startThree(dir, new ClusterTls.CaFiles(caDir.resolve("ca.pem"), caDir.resolve("ca.key")));
        FelixServer n1 = cluster.node("n1");
        String trust = caDir.resolve("ca.pem").toString();

        InProcessCli.Result created = run("stream", "create", "t1/default/orders", "--durable", "--replicas", "3", "--consistency",
                "quorum", "--broker", address("n2"), "--ca", trust);
        assertThat(created.code()).as(created.err()).isZero();
        String leader = n1.cluster().placements().get(0).leader();
        String follower = cluster.nodes().keySet().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();

        // One follower alone: the publish is refused and the leader named.
        InProcessCli.Result refused = run("pub", "t1/default/orders", "x", "--broker", address(follower), "--ca", trust);
        assertThat(refused.code()).isNotZero();
        assertThat(refused.err()).contains("publish failed").contains(leader);

        // Every node listed, the follower first: each message reaches the leader.
        List<String> all = new ArrayList<>(List.of(address(follower)));
        cluster.nodes().keySet().stream().filter(id -> !id.equals(follower)).forEach(id -> all.add(address(id)));
        InProcessCli.Result published = await().atMost(Duration.ofSeconds(30)).until(() -> run("pub", "t1/default/orders", "m0",
                "m1", "m2", "-v", "--broker", String.join(",", all), "--ca", trust), r -> r.code() == 0);
        assertThat(published.err()).contains("offset 0").contains("offset 2");

        InProcessCli.Result read = run("sub", "t1/default/orders", "--from", "earliest", "--count", "3", "--broker",
                address(leader), "--ca", trust);
        assertThat(read.code()).as(read.err()).isZero();
        assertThat(read.out()).contains("m0").contains("m1").contains("m2");

        // A quorum log cache, created through any node and described by another.
        InProcessCli.Result cache = run("cache", "create", "t1/default/routes", "--backing", "log", "--consistency",
                "quorum", "--broker", address(follower), "--ca", trust);
        assertThat(cache.code()).as(cache.err()).isZero();
        assertThat(cache.out()).contains("consistency quorum");
        InProcessCli.Result described = await().atMost(Duration.ofSeconds(10)).until(() -> run("cache", "describe",
                "t1/default/routes", "--broker", String.join(",", all), "--ca", trust), r -> r.code() == 0);
        assertThat(described.out()).contains("backing    log").contains("consistency quorum");

        InProcessCli.Result status = run("cluster", "status", "--broker", address(follower), "--ca", trust);
        assertThat(status.code()).as(status.err()).isZero();
        assertThat(status.out()).contains("n1").contains("n2").contains("n3").contains("up")
                .contains("t1/default/orders").contains("quorum").contains(leader).contains("t1/default/routes");
    }

    private String address(String id) {
        return cluster.address(id);
    }

    private static InProcessCli.Result run(String... args) {
        return InProcessCli.run(args);
    }
}
