package dev.felix.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.wire.ErrorCode;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code cluster_request_timeout_ms} reaches the metadata layer: with two of three nodes stopped, a create through
 * the last one fails with {@code unavailable} after the configured second, not the 5 s default, and the error names
 * the setting a user can change (it named {@code cluster_request_timeout}, which no configuration accepted). That
 * the timeout is kept is {@code RaftMetadataClusterTest}'s to show.
 */
@Timeout(120)
class ClusterRequestTimeoutTest extends ClusterTestBase {

    @Test
    void aCreateWithoutQuorum_failsAfterTheConfiguredRequestTimeout_namingTheSetting() throws Exception {
        cluster = TestCluster.startThree(dir, Map.of("cluster_request_timeout_ms", "1000"));
        FelixClient client = cluster.connect(cluster.node("n3"));
        client.streams().create(StreamRef.parse("t1/default/before"), StreamSpec.ephemeral(1));
        cluster.stop("n1");
        cluster.stop("n2");

        FelixClientException e = catchThrowableOfType(() -> client.streams()
                .create(StreamRef.parse("t1/default/without-quorum"), StreamSpec.ephemeral(1)),
                FelixClientException.class);

        assertThat(e).as("a create without a metadata quorum fails").isNotNull();
        assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(e.getMessage()).contains("no metadata quorum").contains("within 1000ms (cluster_request_timeout_ms)")
                // n1 and n2 are gone, but no quorum is left to commit that: the list must not read as current.
                .contains("Members, as last committed: ");
    }
}
