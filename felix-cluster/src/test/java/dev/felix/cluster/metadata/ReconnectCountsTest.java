package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/**
 * {@link ReconnectCounts} and its metric: a series per peer, client and thread, appearing with the first reconnect to that
 * peer, gone when the metrics are closed.
 */
class ReconnectCountsTest {

    private static final ReconnectCounts.Client W = ReconnectCounts.Client.WRITES;
    private static final ReconnectCounts.Client H = ReconnectCounts.Client.HEARTBEATS;

    private final ReconnectCounts counts = new ReconnectCounts();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void reconnectsAreCountedByPeerAndThread() {
        counts.reconnected("n1", W, true);
        counts.reconnected("n1", W, true);
        counts.reconnected("n1", H, false);
        counts.reconnected("n2", W, true);

        assertThat(counts.count(new ReconnectCounts.Key("n1", W, ReconnectCounts.RanOn.POOL))).isEqualTo(2);
        assertThat(counts.count(new ReconnectCounts.Key("n1", H, ReconnectCounts.RanOn.CALLER))).isEqualTo(1);
        assertThat(counts.count(new ReconnectCounts.Key("n1", W, ReconnectCounts.RanOn.CALLER))).isZero();
        assertThat(counts.count(new ReconnectCounts.Key("n3", W, ReconnectCounts.RanOn.POOL))).isZero();
        assertThat(counts.onPool()).isEqualTo(3);
        assertThat(counts.onCaller()).isEqualTo(1);
    }

    @Test
    void theMetricHasASeriesPerPeer_forReconnectsBeforeAndAfterItWasRegistered() {
        counts.reconnected("n1", W, true); // before the node joined: the metrics come later
        RaftMetrics metrics = new RaftMetrics(registry, source());

        counts.reconnected("n2", W, false);
        counts.reconnected("n1", W, true);

        assertThat(reconnects("writes", "n1", "pool")).isEqualTo(2.0);
        assertThat(reconnects("writes", "n2", "caller")).isEqualTo(1.0);
        assertThat(registry.find("felix.raft.client.reconnects").tags("client", "writes", "peer", "n2", "thread", "pool")
                .functionCounter())
                .as("no reconnect to n2 on a pool's thread yet").isNull();

        metrics.close();
        counts.reconnected("n3", W, true);

        assertThat(registry.find("felix.raft.client.reconnects").functionCounters()).as("after close").isEmpty();
    }

    @Test
    void aTrackedPeersSeriesStartAtZero_andCountOnFromThere() {
        RaftMetrics metrics = new RaftMetrics(registry, source());
        counts.track("n1");
        counts.track("n2");

        assertThat(reconnects("writes", "n1", "pool")).isZero();
        assertThat(reconnects("heartbeats", "n1", "caller")).isZero();
        assertThat(reconnects("writes", "n2", "caller")).isZero();
        counts.reconnected("n2", W, false);
        counts.track("n2"); // tracking again starts nothing anew
        assertThat(reconnects("writes", "n2", "caller")).isEqualTo(1.0);
        assertThat(reconnects("heartbeats", "n2", "caller")).isZero();
        metrics.close();
    }

    @Test
    void theSeriesPrintAsTheRealProcessTestsReadThem() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        RaftMetrics metrics = new RaftMetrics(prometheus, source());
        counts.reconnected("n1", W, true);
        counts.reconnected("n1", W, true);
        counts.reconnected("n1", H, false);

        // FrozenRaftLeaderLivenessTest reads these lines exactly; a missing line would read as 0 there
        assertThat(prometheus.scrape())
                .contains("\nfelix_raft_client_reconnects_total{client=\"writes\",peer=\"n1\",thread=\"pool\"} 2.0\n")
                .contains("\nfelix_raft_client_reconnects_total{client=\"heartbeats\",peer=\"n1\",thread=\"caller\"} 1.0\n")
                .contains("\nfelix_raft_heartbeats_timed_out_total 0.0\n")
                .contains("\nfelix_raft_heartbeats_stale_total 0.0\n");
        metrics.close();
    }

    private double reconnects(String client, String peer, String thread) {
        FunctionCounter c = registry.find("felix.raft.client.reconnects")
                .tags("client", client, "peer", peer, "thread", thread).functionCounter();
        assertThat(c).as("series client=%s peer=%s thread=%s", client, peer, thread).isNotNull();
        return c.count();
    }

    private RaftMetrics.Source source() {
        return new RaftMetrics.Source() {
            @Override
            public boolean leader() {
                return false;
            }

            @Override
            public long term() {
                return 1;
            }

            @Override
            public long commitIndex() {
                return 0;
            }

            @Override
            public long appliedIndex() {
                return 0;
            }

            @Override
            public long lastLogIndex() {
                return 0;
            }

            @Override
            public long snapshotsTaken() {
                return 0;
            }

            @Override
            public long heartbeatsReceived() {
                return 0;
            }

            @Override
            public long heartbeatsStale() {
                return 0;
            }

            @Override
            public ReconnectCounts reconnects() {
                return counts;
            }
        };
    }
}
