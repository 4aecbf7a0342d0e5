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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cluster as the CLI shows it, against three nodes in this JVM: {@code felix cluster ca} makes the CA the
 * nodes start with; {@code stream create --replicas 3 --consistency quorum}; {@code pub} with several
 * {@code --broker} nodes reaches the shard's leader from any of them, while one follower alone answers
 * {@code not_leader} naming the leader; {@code sub} reads the records back; {@code cache create --backing log
 * --consistency quorum} and {@code cache describe} show the cache's consistency; {@code cluster status} lists the
 * members, the shard and the cache, their leaders and their followers' lag.
 */
@Timeout(180)
class ClusterCliTest extends dev.felix.server.cluster.ClusterTestBase {

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

        // Several nodes listed: put, get, watch and delete go to the cache's leader, whichever node is first.
        String cacheLeader = n1.cluster().placements().stream()
                .filter(p -> p.key().kind() == dev.felix.cluster.ShardKey.Kind.CACHE).findFirst().orElseThrow().leader();
        List<String> followerFirst = new ArrayList<>();
        cluster.nodes().keySet().stream().filter(id -> !id.equals(cacheLeader)).forEach(id -> followerFirst.add(address(id)));
        followerFirst.add(address(cacheLeader));
        String nodes = String.join(",", followerFirst);
        InProcessCli.Result put = await().atMost(Duration.ofSeconds(30)).until(() -> run("cache", "put",
                "t1/default/routes", "eu", "10.0.0.1", "--broker", nodes, "--ca", trust), r -> r.code() == 0);
        assertThat(put.out().strip()).isEqualTo("0");
        InProcessCli.Result got = run("cache", "get", "t1/default/routes", "eu", "--broker", nodes, "--ca", trust);
        assertThat(got.code()).as(got.err()).isZero();
        assertThat(got.out().strip()).isEqualTo("10.0.0.1");
        var watch = java.util.concurrent.CompletableFuture.supplyAsync(() -> run("cache", "watch", "t1/default/routes",
                "--count", "1", "--broker", nodes, "--ca", trust));
        var writer = cluster.connect(cluster.node(cacheLeader)).cache(dev.felix.client.CacheRef.parse("t1/default/routes"));
        // Until the watch (started on another thread) has seen a change: a put on each poll.
        int[] n = {0};
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
            writer.put("us", ("10.0.0." + (2 + n[0]++)).getBytes(java.nio.charset.StandardCharsets.UTF_8), null);
            return watch.isDone();
        });
        InProcessCli.Result watched = watch.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(watched.code()).as(watched.err()).isZero();
        assertThat(watched.out()).contains("snapshot\tput\teu\t10.0.0.1").containsPattern("\\d+\tput\tus\t10\\.0\\.0\\.");
        InProcessCli.Result deleted = run("cache", "delete", "t1/default/routes", "eu", "--broker", nodes, "--ca", trust);
        assertThat(deleted.code()).as(deleted.err()).isZero();
        assertThat(Long.parseLong(deleted.out().strip())).isPositive();
        InProcessCli.Result gone = run("cache", "get", "t1/default/routes", "eu", "--broker", nodes, "--ca", trust);
        assertThat(gone.code()).isEqualTo(4);

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
