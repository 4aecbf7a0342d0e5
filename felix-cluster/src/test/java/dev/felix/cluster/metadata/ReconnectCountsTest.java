package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/**
 * {@link ReconnectCounts} and its metric: a series per peer and thread, appearing with the first reconnect to that
 * peer, gone when the metrics are closed.
 */
class ReconnectCountsTest {

    private final ReconnectCounts counts = new ReconnectCounts();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void reconnectsAreCountedByPeerAndThread() {
        counts.reconnected("n1", true);
        counts.reconnected("n1", true);
        counts.reconnected("n1", false);
        counts.reconnected("n2", true);

        assertThat(counts.count(new ReconnectCounts.Key("n1", ReconnectCounts.RanOn.POOL))).isEqualTo(2);
        assertThat(counts.count(new ReconnectCounts.Key("n1", ReconnectCounts.RanOn.CALLER))).isEqualTo(1);
        assertThat(counts.count(new ReconnectCounts.Key("n3", ReconnectCounts.RanOn.POOL))).isZero();
        assertThat(counts.onPool()).isEqualTo(3);
        assertThat(counts.onCaller()).isEqualTo(1);
    }

    @Test
    void theMetricHasASeriesPerPeer_forReconnectsBeforeAndAfterItWasRegistered() {
        counts.reconnected("n1", true); // before the node joined: the metrics come later
        RaftMetrics metrics = new RaftMetrics(registry, source());

        counts.reconnected("n2", false);
        counts.reconnected("n1", true);

        assertThat(reconnects("n1", "pool")).isEqualTo(2.0);
        assertThat(reconnects("n2", "caller")).isEqualTo(1.0);
        assertThat(registry.find("felix.raft.client.reconnects").tags("peer", "n2", "thread", "pool").functionCounter())
                .as("no reconnect to n2 on a pool's thread yet").isNull();

        metrics.close();
        counts.reconnected("n3", true);

        assertThat(registry.find("felix.raft.client.reconnects").functionCounters()).as("after close").isEmpty();
    }

    @Test
    void aTrackedPeersSeriesStartAtZero_andCountOnFromThere() {
        RaftMetrics metrics = new RaftMetrics(registry, source());
        counts.track("n1");
        counts.track("n2");

        assertThat(reconnects("n1", "pool")).isZero();
        assertThat(reconnects("n2", "caller")).isZero();
        counts.reconnected("n2", false);
        counts.track("n2"); // tracking again starts nothing anew
        assertThat(reconnects("n2", "caller")).isEqualTo(1.0);
        metrics.close();
    }

    @Test
    void theSeriesPrintAsTheRealProcessTestsReadThem() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        RaftMetrics metrics = new RaftMetrics(prometheus, source());
        counts.reconnected("n1", true);
        counts.reconnected("n1", true);
        counts.reconnected("n1", false);

        // FrozenRaftLeaderLivenessTest reads these lines exactly; a missing line would read as 0 there
        assertThat(prometheus.scrape()).contains("\nfelix_raft_client_reconnects_total{peer=\"n1\",thread=\"pool\"} 2.0\n")
                .contains("\nfelix_raft_client_reconnects_total{peer=\"n1\",thread=\"caller\"} 1.0\n")
                .contains("\nfelix_raft_heartbeats_timed_out_total 0.0\n")
                .contains("\nfelix_raft_heartbeats_stale_total 0.0\n");
        metrics.close();
    }

    private double reconnects(String peer, String thread) {
        FunctionCounter c = registry.find("felix.raft.client.reconnects").tags("peer", peer, "thread", thread)
                .functionCounter();
        assertThat(c).as("series peer=%s thread=%s", peer, thread).isNotNull();
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
