package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.wire.ErrorCode;
import dev.felix.wire.Message;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cache_create.consistency} on a single node, over QUIC: {@code quorum} is refused with a {@code bad_request}
 * naming the way out (a cluster, or {@code leader}), {@code quorum} on a memory cache is refused on any broker,
 * nothing is created by a refusal, and {@code leader} is accepted and — being the default on a broker that is not
 * clustered — not echoed.
 */
@Timeout(60)
class CacheConsistencyTest {

    private static final CacheRef LEDGER = CacheRef.parse("t1/default/ledger");
    private static final CacheRef SCRATCH = CacheRef.parse("t1/default/scratch");

    @TempDir
    Path dir;

    @Test
    void aSingleNodeRefusesQuorum_namingTheFix_andCreatesNothing() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            assertThatThrownBy(() -> c.caches().create(LEDGER, CacheSpec.log("on_commit").withConsistency("quorum")))
                    .isInstanceOfSatisfying(FelixClientException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST);
                        assertThat(e.brokerMessage()).contains("consistency quorum needs a cluster")
                                .contains("--cluster-bootstrap").contains("consistency leader");
                    });
            assertThatThrownBy(() -> c.caches().describe(LEDGER)).isInstanceOfSatisfying(FelixClientException.class,
                    e -> assertThat(e.code()).as("the refused cache was not created").isEqualTo(ErrorCode.NOT_FOUND));

            Message.CacheInfo leader = c.caches().create(LEDGER, CacheSpec.log("on_commit").withConsistency("leader"));
            assertThat(leader.backing()).isEqualTo("log");
            assertThat(leader.consistency()).as("the default, on a broker that is not clustered").isNull();
            assertThat(c.caches().list("default")).singleElement()
                    .satisfies(d -> assertThat(d.consistency()).isNull());
        }
    }

    @Test
    void quorumOnAMemoryCacheIsABadRequest_explainingWhy() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            assertThatThrownBy(() -> c.caches().create(SCRATCH, CacheSpec.memory().withConsistency("quorum")))
                    .isInstanceOfSatisfying(FelixClientException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST);
                        assertThat(e.brokerMessage()).contains("quorum needs a log cache");
                    });
            assertThatThrownBy(() -> c.caches().describe(SCRATCH)).isInstanceOfSatisfying(FelixClientException.class,
                    e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        }
    }

    @Test
    void anUnknownConsistencyIsABadRequest_listingTheValues() throws Exception {
        // Past the SDK's own check (a raw request): the broker names the field and the values it takes.
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            CacheSpec eventual = new CacheSpec("log", null, null, null, "eventual");
            assertThatThrownBy(() -> c.caches().create(LEDGER, eventual))
                    .isInstanceOfSatisfying(FelixClientException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST);
                        assertThat(e.brokerMessage()).contains("consistency 'eventual'").contains("leader or quorum");
                    });
        }
    }
}
