package dev.felix.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.core.Consistency;
import dev.felix.server.FelixServer;
import dev.felix.wire.CacheDescription;
import dev.felix.wire.ErrorCode;
import dev.felix.wire.Message;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code cache_create.consistency} in a three-node cluster over QUIC: a quorum log cache is accepted, placed with
 * that consistency, and described as {@code quorum} by every node (create, describe, list); a clustered broker
 * names the consistency of every cache, {@code leader} included; a memory cache still refuses {@code quorum}.
 */
@Timeout(180)
class ClusterCacheConsistencyTest extends ClusterTestBase {

    private static final CacheRef LEDGER = CacheRef.parse("t1/default/ledger");
    private static final CacheRef SESSIONS = CacheRef.parse("t1/default/sessions");
    private static final CacheRef SCRATCH = CacheRef.parse("t1/default/scratch");

    @Test
    void aQuorumLogCacheIsPlacedAndDescribedAsQuorumByEveryNode_andAMemoryCacheRefusesIt() throws Exception {
        cluster = TestCluster.startThree(dir);
        FelixServer n1 = cluster.node("n1");
        FelixClient admin = cluster.connect(n1);

        Message.CacheInfo created = admin.caches().create(LEDGER, CacheSpec.log("on_commit").withConsistency("quorum"));
        assertThat(created.consistency()).isEqualTo("quorum");
        assertThat(admin.caches().create(SESSIONS, CacheSpec.log("on_commit")).consistency())
                .as("a clustered broker names the default too").isEqualTo("leader");
        assertThat(placement(n1, LEDGER).consistency()).isEqualTo(Consistency.QUORUM);
        assertThat(placement(n1, SESSIONS).consistency()).isEqualTo(Consistency.LEADER);

        for (String id : new String[] {"n1", "n2", "n3"}) {
            FelixClient at = cluster.connect(cluster.node(id));
            // Every node learns the definition from metadata; describe is answered wherever the cache is known.
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
                    .until(() -> at.caches().list("default").size() == 2);
            Map<String, CacheDescription> listed = at.caches().list("default").stream()
                    .collect(Collectors.toMap(CacheDescription::cache, Function.identity()));
            assertThat(listed.get("ledger").consistency()).as("listed by " + id).isEqualTo("quorum");
            assertThat(listed.get("sessions").consistency()).as("listed by " + id).isEqualTo("leader");
        }
        String leader = placement(n1, LEDGER).leader();
        assertThat(cluster.connect(cluster.node(leader)).caches().describe(LEDGER).consistency()).isEqualTo("quorum");

        assertThatThrownBy(() -> admin.caches().create(SCRATCH, CacheSpec.memory().withConsistency("quorum")))
                .isInstanceOfSatisfying(FelixClientException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST);
                    assertThat(e.brokerMessage()).contains("quorum needs a log cache");
                });
        assertThat(admin.caches().create(SCRATCH, CacheSpec.memory()).consistency()).isEqualTo("leader");
    }

    private static ShardPlacement placement(FelixServer node, CacheRef cache) {
        return placement(node, ShardKey.Kind.CACHE, cache.toString());
    }
}
