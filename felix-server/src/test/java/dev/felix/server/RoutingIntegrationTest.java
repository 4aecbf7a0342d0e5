package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.client.Cache;
import dev.felix.client.CacheRef;
import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.StreamRef;
import dev.felix.client.SubscribeOptions;
import dev.felix.core.StreamName;
import dev.felix.core.cache.CacheName;
import dev.felix.core.routing.Leadership;
import dev.felix.core.routing.NodeRef;
import dev.felix.core.routing.Router;
import dev.felix.server.config.BrokerConfig;
import dev.felix.server.config.ConfigLoader;
import dev.felix.transport.ClientTrust;
import dev.felix.wire.ErrorCode;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every handler that touches a shard or cache asks the broker's router first: what another node leads is
 * refused with {@code not_leader} naming it, what nobody can lead with the router's reason, and nothing
 * is created or touched here.
 */
@Timeout(60)
class RoutingIntegrationTest {

    @TempDir
    Path dir;

    /** Leads everything except stream t1/default/remote and cache t1/default/remote; t1/default/down has no leader. */
    private static final Router ROUTER = new Router() {
        @Override
        public Leadership shard(StreamName stream, int shard) {
            return switch (stream.stream()) {
                case "remote" -> new Leadership.Elsewhere(new NodeRef("n2", "10.0.0.2:5000"), 7);
                case "down" -> new Leadership.Unavailable(dev.felix.core.FelixError.of(
                        dev.felix.core.ErrorCode.UNAVAILABLE, "no leader for " + stream + "/" + shard));
                default -> Leadership.HERE;
            };
        }

        @Override
        public Leadership cache(CacheName cache) {
            return cache.cache().equals("remote") ? new Leadership.Elsewhere(new NodeRef("n3", "10.0.0.3:5000"), 2)
                    : Leadership.HERE;
        }
    };

    @Test
    void publishSubscribeAndCacheOps_onWhatAnotherNodeLeads_areNotLeaderNamingIt() throws Exception {
        BrokerConfig config = ConfigLoader.load(null, Map.of(), Map.of("data_dir", dir.toString(),
                "quic_bind", "127.0.0.1:0", "http_bind", "127.0.0.1:0"));
        try (FelixServer server = FelixServer.start(config, null, ROUTER);
                FelixClient c = FelixClient.connect(ClientConfig.builder(ClientTrust.certificates(server.tls().chain()))
                        .broker(server.quicAddress()).tenant("t1").build())) {
            StreamRef remote = StreamRef.parse("t1/default/remote");
            assertThatThrownBy(() -> c.publisher(remote).publish(new byte[] {1})).isInstanceOfSatisfying(
                    FelixClientException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.NOT_LEADER);
                        assertThat(e.getMessage()).contains("node n2 at 10.0.0.2:5000", "epoch 7");
                    });
            assertThatThrownBy(() -> c.subscribe(SubscribeOptions.of(remote))).isInstanceOfSatisfying(
                    FelixClientException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_LEADER));
            assertThatThrownBy(() -> c.publisher(StreamRef.parse("t1/default/down")).publish(new byte[] {1}))
                    .isInstanceOfSatisfying(FelixClientException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
                        assertThat(e.getMessage()).contains("no leader for t1/default/down/0");
                    });
            try (Cache cache = c.cache(CacheRef.parse("t1/default/remote"))) {
                assertThatThrownBy(() -> cache.put("k", new byte[] {1}, null)).isInstanceOfSatisfying(
                        FelixClientException.class, e -> {
                            assertThat(e.code()).isEqualTo(ErrorCode.NOT_LEADER);
                            assertThat(e.getMessage()).contains("node n3");
                        });
            }
            assertThat(server.broker().caches().find(new CacheName("t1", "default", "remote")))
                    .as("nothing was created for the refused put").isEmpty();
            assertThat(c.publisher(StreamRef.parse("t1/default/local")).publish(new byte[] {1}).firstOffset())
                    .as("what this node leads is served").isZero();
        }
    }
}
