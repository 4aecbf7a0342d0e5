package dev.felix.demos.cluster;

import static dev.felix.demos.cluster.NodeMetrics.awaitAllUp;
import static dev.felix.demos.cluster.NodeMetrics.statuses;
import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.client.FelixClient;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real {@code felix server} processes, each advertising a {@link TcpProxy} in front of its Raft endpoint
 * ({@code raft_advertise}, as behind NAT). The Raft leader is then cut off from its own proxy ({@link
 * TcpProxy#cutOff}), as a router that does not hairpin leaves a node unable to reach its own forwarded port; the others
 * still reach it there.
 *
 * <p>A node's own Raft clients dial its bound address, not the advertised one ({@code NodeFile.dialledBySelf}), so
 * nothing of the leader's own goes through its proxy and metadata writes through it commit. When they dialled the
 * advertised address, every create through the leader failed after the 5 s request timeout with {@code unavailable:
 * no metadata quorum} (3 of 3, all nodes up).
 */
@Timeout(180)
class NoHairpinTest {

    /** Kept when the test fails: the nodes' logs are under {@code logs/}. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @Test
    void aLeaderThatCannotReachItsOwnAdvertisedAddress_stillCommitsMetadataWrites() throws Exception {
        try (LocalCluster c = LocalCluster.startBehindProxies(dir, 3, List.of())) {
            NodeProcess leader = NodeMetrics.raftLeader(c.nodes());
            try (FelixClient client = c.connect(leader.id())) {
                awaitAllUp(client);
                int own = c.raftProxy(leader.id()).cutOff(leader.pid());
                assertThat(own).as("connections %s itself opened to its own advertised address", leader.id())
                        .isZero();
                for (int i = 0; i < 3; i++) {
                    long start = System.nanoTime();
                    StreamRef ref = StreamRef.parse("t1/default/no-hairpin-" + i);
                    client.streams().create(ref, StreamSpec.ephemeral(1));
                    System.out.printf("create %d through the leader %s: %d ms (%s)%n", i, leader.id(),
                            (System.nanoTime() - start) / 1_000_000, dir);
                    assertThat(client.streams().describe(ref)).isNotNull();
                }
                assertThat(NodeMetrics.raftLeader(c.nodes())).as("still the leader").isSameAs(leader);
                assertThat(statuses(client)).allSatisfy((node, status) -> assertThat(status).as(node)
                        .isEqualTo("up"));
            }
        }
    }
}
