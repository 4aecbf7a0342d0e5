package dev.felix.demos.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.wire.ErrorCode;
import dev.felix.wire.StreamDescription;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real {@code felix server} processes. One is frozen (SIGSTOP) while a stream and a cache are created through
 * another and a describe of the stream is sent to it; then it is thawed and asked about both again at once. It has
 * not applied the creates when the requests arrive, catches up with the metadata leader first, and answers as any
 * node would, never {@code not_found}. Eight rounds, a new stream and cache each.
 *
 * <p>Whether the thawed node has applied the creates before the requests reach it is a race on these processes: in
 * more than half of the rounds it had not (1 of 3, 2 of 3, 4 of 5 in the first runs), so with eight rounds at least
 * one catch-up is asserted. {@code ClusterCatchUpTest} holds a node's applying to make the lag certain.
 */
@Timeout(180)
class FrozenNodeCatchUpTest {

    /** Rounds: in more than half of them the thawed node was still behind when asked (the count is printed). */
    private static final int ROUNDS = 8;
    private static final Set<ErrorCode> NOT_HERE = Set.of(ErrorCode.NOT_LEADER, ErrorCode.UNAVAILABLE);

    @TempDir
    Path dir;

    @Test
    void aThawedNode_answersForWhatWasCreatedWhileItWasFrozen_withoutNotFound() throws Exception {
        try (LocalCluster c = LocalCluster.start(dir, 3, List.of())) {
            NodeProcess raftLeader = c.nodes().stream().filter(n -> NodeMetrics.value(n, "felix_raft_leader") == 1.0)
                    .findFirst().orElseThrow();
            NodeProcess frozen = c.nodes().stream().filter(n -> n != raftLeader).findFirst().orElseThrow();
            NodeProcess writerNode = c.nodes().stream().filter(n -> n != frozen).findFirst().orElseThrow();
            try (FelixClient writer = c.connect(writerNode.id()); FelixClient late = c.connect(frozen.id())) {
                for (int round = 0; round < ROUNDS; round++) {
                    StreamRef stream = StreamRef.parse("t1/default/made-while-frozen-" + round);
                    CacheRef cache = CacheRef.parse("t1/default/config-made-while-frozen-" + round);
                    CompletableFuture<StreamDescription> described;
                    frozen.freeze();
                    try {
                        writer.streams().create(stream, StreamSpec.ephemeral(1));
                        writer.caches().create(cache, CacheSpec.memory());
                        // Sent while it is frozen: the request waits in its socket beside the Raft traffic it missed.
                        described = CompletableFuture.supplyAsync(() -> late.streams().describe(stream));
                    } finally {
                        frozen.thaw();
                    }
                    assertThat(described.get(20, TimeUnit.SECONDS).replicas()).isPositive();
                    // And at once after it was thawed, through the same node.
                    answeredOrNotHere(() -> late.publisher(stream).publish(bytes("x")));
                    answeredOrNotHere(() -> late.cache(cache).get("k"));
                }
                double caughtUp = NodeMetrics.value(frozen, "felix_raft_catch_ups_total{outcome=\"caught_up\"}");
                double gaveUp = NodeMetrics.value(frozen, "felix_raft_catch_ups_total{outcome=\"gave_up\"}");
                System.out.printf("node %s: %.0f catch-up rounds, %.0f given up%n", frozen.id(), caughtUp, gaveUp);
                assertThat(gaveUp).isZero();
                assertThat(caughtUp).as("in some round the thawed node did not know the new names when asked")
                        .isPositive();
            }
        }
    }

    private static void answeredOrNotHere(Runnable request) {
        try {
            request.run();
        } catch (FelixClientException e) {
            assertThat(e.code()).as(e.getMessage()).isIn(NOT_HERE);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
