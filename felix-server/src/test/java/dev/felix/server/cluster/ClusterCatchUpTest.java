package dev.felix.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.cluster.metadata.RaftMetadata;
import dev.felix.core.StreamName;
import dev.felix.server.FelixServer;
import dev.felix.wire.ErrorCode;
import dev.felix.wire.StreamDescription;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A cluster node applies the metadata log a moment after the node that served a create. Here that moment is made
 * as long as the test wants ({@link RaftMetadata#holdApplying()} on one node): requests for the new stream and
 * cache sent to that node wait until it has caught up with the metadata leader, then are answered as on any other
 * node, never {@code not_found}. A name that exists nowhere is still {@code not_found}, after one catch-up.
 */
@Timeout(120)
class ClusterCatchUpTest extends ClusterTestBase {

    private static final StreamRef LATE = StreamRef.parse("t1/default/late");
    private static final CacheRef LATE_CACHE = CacheRef.parse("t1/default/late-config");
    private static final Set<ErrorCode> NOT_HERE = Set.of(ErrorCode.NOT_LEADER, ErrorCode.UNAVAILABLE);

    @Test
    void requestsForAStreamAndCacheANodeHasNotAppliedYet_waitForItToCatchUp_andAreNeverNotFound() throws Exception {
        cluster = TestCluster.startThree(dir);
        FelixServer lagging = cluster.nodes().values().stream().filter(n -> !raft(n).raftStatus().leader())
                .findFirst().orElseThrow();
        FelixServer writerNode = cluster.nodes().values().stream().filter(n -> n != lagging).findFirst().orElseThrow();
        FelixClient writer = cluster.connect(writerNode);
        FelixClient late = cluster.connect(lagging);
        writer.streams().create(StreamRef.parse("t1/default/warm-up"), StreamSpec.ephemeral(1)); // the namespace
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
                .until(() -> raft(lagging).namespaceExists("t1", "default"));
        double before = catchUps(lagging, "caught_up");

        CompletableFuture<StreamDescription> described;
        CompletableFuture<Long> published;
        CompletableFuture<Subscription> subscribed;
        CompletableFuture<Optional<byte[]>> got;
        try (AutoCloseable held = raft(lagging).holdApplying()) {
            StreamDescription created = writer.streams().create(LATE, StreamSpec.ephemeral(1));
            writer.caches().create(LATE_CACHE, CacheSpec.memory());
            assertThat(raft(lagging).stream(new StreamName("t1", "default", "late"))).as("not applied there yet")
                    .isEmpty();
            assertThat(created.shardInfo()).hasSize(1);

            described = CompletableFuture.supplyAsync(() -> late.streams().describe(LATE));
            published = CompletableFuture.supplyAsync(() -> late.publisher(LATE).publish(bytes("x")).firstOffset());
            subscribed = CompletableFuture.supplyAsync(() -> late.subscribe(SubscribeOptions.of(LATE)));
            got = CompletableFuture.supplyAsync(() -> late.cache(LATE_CACHE).get("k"));
            // Each waits for the catch-up, which cannot end while that node's applying is held.
            assertThatThrownBy(() -> CompletableFuture.anyOf(described, published, subscribed, got)
                    .get(500, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        }

        assertThat(described.get(20, TimeUnit.SECONDS).replicas()).isPositive();
        assertAnsweredOrNotHere(published);
        assertAnsweredOrNotHere(subscribed);
        assertAnsweredOrNotHere(got);
        if (subscribed.isDone() && !subscribed.isCompletedExceptionally()) {
            subscribed.get().close();
        }
        assertThat(catchUps(lagging, "caught_up") - before).as("coalesced: the four asked once or twice")
                .isBetween(1.0, 4.0);
        assertThat(catchUps(lagging, "gave_up")).isZero();
    }

    @Test
    void aStreamThatExistsNowhere_isNotFound_afterOneCatchUp() throws Exception {
        cluster = TestCluster.startThree(dir);
        FelixServer follower = cluster.nodes().values().stream().filter(n -> !raft(n).raftStatus().leader())
                .findFirst().orElseThrow();
        FelixClient client = cluster.connect(follower);
        double before = rounds(follower);

        FelixClientException e = catchThrowableOfType(FelixClientException.class,
                () -> client.streams().describe(StreamRef.parse("t1/default/nowhere")));

        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
        // one round (caught up, or given up if the metadata leader changed just then), and no more
        assertThat(rounds(follower) - before).isEqualTo(1.0);
        FelixClientException publish = catchThrowableOfType(FelixClientException.class,
                () -> client.publisher(StreamRef.parse("t1/default/nowhere")).publish(bytes("x")));
        assertThat(publish.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(rounds(follower) - before).isEqualTo(2.0);
    }

    private static void assertAnsweredOrNotHere(CompletableFuture<?> f) throws Exception {
        try {
            f.get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(FelixClientException.class);
            assertThat(((FelixClientException) e.getCause()).code()).as(e.getCause().getMessage()).isIn(NOT_HERE);
        }
    }

    private static RaftMetadata raft(FelixServer node) {
        return (RaftMetadata) node.broker().metadata();
    }

    private static double rounds(FelixServer node) {
        return catchUps(node, "caught_up") + catchUps(node, "gave_up");
    }

    private static double catchUps(FelixServer node, String outcome) {
        Matcher m = Pattern.compile("(?m)^felix_raft_catch_ups_total\\{outcome=\"" + outcome + "\"\\} (\\S+)$")
                .matcher(node.metrics().scrape());
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
