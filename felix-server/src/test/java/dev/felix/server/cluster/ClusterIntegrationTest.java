package dev.felix.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.felix.client.ClientConfig;
import dev.felix.client.ClusterPublisher;
import dev.felix.client.ClusterSubscription;
import dev.felix.client.FelixCluster;
import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.Item;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.server.FelixServer;
import dev.felix.transport.ClientTrust;
import dev.felix.wire.ErrorCode;
import dev.felix.wire.StartPosition;
import dev.felix.wire.StreamDescription;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three {@code felix server} nodes in one JVM form a cluster over real QUIC, Raft and mutual TLS: a durable
 * {@code quorum} stream is placed on all three, a publish to a node that does not lead its shard is
 * answered {@code not_leader} naming the leader, the leader acknowledges from a majority, and a clean stop
 * of the leader hands the shard to a replica that serves every acknowledged record at its offset.
 */
@Timeout(180)
class ClusterIntegrationTest extends ClusterTestBase {

    private static final StreamRef ORDERS = StreamRef.parse("t1/default/orders");

    private FelixClient connect(FelixServer node) throws Exception {
        return cluster.connect(node);
    }

    private FelixServer node(String id) {
        return cluster.node(id);
    }

    @Test
    void aQuorumStreamIsReplicated_redirectsNameItsLeader_andACleanStopHandsItToAReplicaWithEveryRecord()
            throws Exception {
        FelixServer n1 = startThree();
        StreamDescription created = connect(n1).streams().create(ORDERS,
                new StreamSpec(1, true, "on_commit", null, null).replicated("quorum", 3));
        assertThat(created.consistency()).isEqualTo("quorum");
        assertThat(created.replicas()).isEqualTo(3);
        String leaderId = created.shardInfo().get(0).leader();
        assertThat(created.shardInfo().get(0).replicas()).containsExactlyInAnyOrder("n1", "n2", "n3");
        assertThat(n1.certificateFile()).as("clients are told to trust the cluster CA").isEqualTo(cluster.ca().cert());
        // A node that does not lead the shard says who does, at once: a node that has not applied the create yet
        // catches up before it answers (docs/cluster.md, "Creates and the other nodes"; ClusterCatchUpTest).
        String otherId = cluster.nodes().keySet().stream().filter(id -> !id.equals(leaderId)).findFirst().orElseThrow();
        FelixClientException redirect = catchThrowableOfType(FelixClientException.class,
                () -> connect(node(otherId)).publisher(ORDERS).publish(bytes("x")));
        assertThat(redirect.code()).isEqualTo(ErrorCode.NOT_LEADER);
        assertThat(redirect.leader()).isNotNull();
        assertThat(redirect.leader().node()).isEqualTo(leaderId);
        assertThat(redirect.leader().addr()).isEqualTo("127.0.0.1:" + node(leaderId).quicAddress().getPort());

        FelixServer leader = node(leaderId);
        FelixClient leaderClient = connect(leader);
        Publisher publisher = leaderClient.publisher(ORDERS);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> publisher.publish(bytes("m0")).firstOffset() == 0);
        for (int i = 1; i < 20; i++) {
            assertThat(publisher.publish(bytes("m" + i)).firstOffset()).isEqualTo(i);
        }

        // A node that follows the shard never opens its log through its own shard runtime: the directory is its
        // replica's (opening recovers the log, which must not happen under the replica's appends).
        FelixServer follower = node(otherId);
        double recoveries = metricValue(scrape(follower), "felix_storage_recovery_total");
        var load = follower.broker().stream(new dev.felix.core.StreamName("t1", "default", "orders")).shard(0).load();
        Throwable refused = catchThrowableOfType(java.util.concurrent.CompletionException.class, load::join).getCause();
        assertThat(((dev.felix.core.FelixException) refused).error().code()).isEqualTo(dev.felix.core.ErrorCode.NOT_LEADER);
        assertThat(metricValue(scrape(follower), "felix_storage_recovery_total")).as("no log opened").isEqualTo(recoveries);

        var status = leaderClient.cluster().status();
        assertThat(status.node()).isEqualTo(leaderId);
        assertThat(status.nodes()).extracting(n -> n.node() + "=" + n.status()).containsExactly("n1=up", "n2=up", "n3=up");
        assertThat(status.shards()).hasSize(1);
        assertThat(status.shards().get(0).leader()).isEqualTo(leaderId);
        assertThat(status.shards().get(0).hwm()).isEqualTo(20L);
        assertThat(status.shards().get(0).lag()).hasSize(2);

        // The leader's replication gauges (refreshed each second) say what the status said; every cluster
        // metric it exposes is documented, and every documented one exposed.
        String shardTags = "{shard=\"0\",unit=\"t1/default/orders\"}";
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(scrape(leader).lines()
                .filter(l -> l.startsWith("felix_replication_")).toList())
                .contains("felix_replication_high_watermark" + shardTags + " 20.0"));
        String scrape = scrape(leader);
        assertThat(scrape).contains("felix_replication_role" + shardTags + " 1.0")
                .contains("felix_replication_log_end" + shardTags + " 20.0");
        assertThat(metricValue(scrape, "felix_replication_fetch_bytes_total{direction=\"sent\"}")).isPositive();
        assertThat(metricValue(scrape(node(otherId)), "felix_replication_fetch_bytes_total{direction=\"received\"}"))
                .isPositive();
        assertClusterMetricsDocumented(scrape);
        assertThat(scrape).as("the kernel's counters of both listeners and of the outgoing peer sockets").contains(
                "felix_udp_receive_drops_total{listener=\"clients\"}", "felix_udp_receive_drops_total{listener=\"peers\"}",
                "felix_udp_receive_drops_total{listener=\"peers-outgoing\"}");

        // A clean stop hands the shard over; the new leader serves every acknowledged record at its offset.
        cluster.stop(leaderId);
        FelixServer survivor = cluster.nodes().values().iterator().next();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            var p = survivor.cluster().placements().get(0);
            return !p.leader().equals(leaderId) && p.epoch() > 1;
        });
        String newLeaderId = survivor.cluster().placements().get(0).leader();
        FelixServer newLeader = node(newLeaderId);
        Subscription s = connect(newLeader).subscribe(SubscribeOptions.of(ORDERS).fromEarliest());
        for (int i = 0; i < 20; i++) {
            Item item = s.next(Duration.ofSeconds(20));
            assertThat(item).isInstanceOf(Event.class);
            assertThat(((Event) item).offset()).isEqualTo(i);
            assertThat(new String(((Event) item).payload(), StandardCharsets.UTF_8)).isEqualTo("m" + i);
        }
        Publisher again = connect(newLeader).publisher(ORDERS);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> again.publish(bytes("m20")).firstOffset() == 20);
    }

    @Test
    void theClusterClientFollowsTheShardsLeader_acrossAHandOff_andItsSubscriptionResumesAtTheNextOffset()
            throws Exception {
        FelixServer n1 = startThree();
        String leaderId = connect(n1).streams().create(ORDERS,
                new StreamSpec(1, true, "on_commit", null, null).replicated("quorum", 3)).shardInfo().get(0).leader();
        String followerId = cluster.nodes().keySet().stream().filter(id -> !id.equals(leaderId)).findFirst().orElseThrow();
        ClientConfig config = ClientConfig.builder(ClientTrust.certificates(cluster.ca().cert())).tenant("t1")
                .connectTimeout(Duration.ofSeconds(3)).requestTimeout(Duration.ofSeconds(30)).build();

        // The client knows one follower only; it finds the leader from the cluster's answer.
        try (FelixCluster cluster = FelixCluster.connect(config, List.of(node(followerId).quicAddress()));
                ClusterPublisher publisher = cluster.publisher(ORDERS)) {
            for (int i = 0; i < 10; i++) {
                assertThat(publisher.publish(bytes("m" + i)).firstOffset()).isEqualTo(i);
            }
            ClusterSubscription subscription = cluster.subscribe(ORDERS, 0, StartPosition.EARLIEST);
            expect(subscription, 0, 10);

            // The leader stops cleanly and hands the shard to a replica: the publisher and the subscription
            // follow without the application doing anything, and no offset is skipped or repeated.
            this.cluster.stop(leaderId);
            for (int i = 10; i < 20; i++) {
                assertThat(publisher.publish(bytes("m" + i)).firstOffset()).isEqualTo(i);
            }
            expect(subscription, 10, 20);
            assertThat(cluster.resubscriptions()).as("the subscription moved to the new leader").isPositive();
            assertThat(cluster.retries() + cluster.redirects()).as("the publisher moved").isPositive();
            subscription.close();
        }
    }

    /** The next items of {@code subscription} are the events {@code m<from>..m<to - 1>} at their offsets. */
    private static void expect(ClusterSubscription subscription, int from, int to) {
        for (int i = from; i < to; i++) {
            Item item = subscription.next(Duration.ofSeconds(30));
            assertThat(item).isInstanceOf(Event.class);
            assertThat(((Event) item).offset()).isEqualTo(i);
            assertThat(new String(((Event) item).payload(), StandardCharsets.UTF_8)).isEqualTo("m" + i);
        }
    }

    private static String scrape(FelixServer node) throws Exception {
        var http = java.net.http.HttpClient.newHttpClient();
        return http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:"
                + node.httpAddress().getPort() + "/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    }

    private static double metricValue(String scrape, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(scrape);
        assertThat(m.find()).as(series + " in the scrape").isTrue();
        return Double.parseDouble(m.group(1));
    }

    /** docs/operations.md "## Cluster metrics" lists exactly the felix_raft_* and felix_replication_* families. */
    private static void assertClusterMetricsDocumented(String scrape) throws Exception {
        Set<String> exposed = new TreeSet<>();
        Matcher type = Pattern.compile("(?m)^# TYPE ((felix_raft_|felix_replication_)\\S+) \\S+$").matcher(scrape);
        while (type.find()) {
            exposed.add(type.group(1));
        }
        String doc = Files.readString(Path.of(System.getProperty("felix.repo.root", "..")).resolve("docs/operations.md"));
        int start = doc.indexOf("## Cluster metrics");
        String section = doc.substring(start, doc.indexOf("\n## ", start + 1));
        Set<String> documented = new TreeSet<>();
        Matcher name = Pattern.compile("`(felix_[a-z0-9_]+)").matcher(section);
        while (name.find()) {
            documented.add(name.group(1));
        }
        assertThat(documented).as("documented in docs/operations.md ## Cluster metrics")
                .containsExactlyInAnyOrderElementsOf(exposed);
    }

    private FelixServer startThree() throws Exception {
        cluster = TestCluster.startThree(dir);
        return cluster.node("n1");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
