package dev.felix.cluster.replication;

import dev.felix.cluster.ClusterView;
import dev.felix.cluster.ReplicaReport;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code felix_replication_*} meters of one node (Prometheus names; Micrometer names use dots):
 * <table>
 *   <caption>replication meters</caption>
 *   <tr><td>{@code felix_replication_role{unit,shard}}</td><td>gauge</td><td>1 where this node leads the
 *   shard, 0 where it holds a follower copy</td></tr>
 *   <tr><td>{@code felix_replication_epoch{unit,shard}}</td><td>gauge</td><td>the epoch of the shard's last
 *   record here</td></tr>
 *   <tr><td>{@code felix_replication_log_end{unit,shard}}</td><td>gauge</td><td>offset after the last record
 *   here</td></tr>
 *   <tr><td>{@code felix_replication_high_watermark{unit,shard}}</td><td>gauge</td><td>leader only: offset
 *   below which readers see records</td></tr>
 *   <tr><td>{@code felix_replication_follower_lag_records{unit,shard,follower}}</td><td>gauge</td><td>leader
 *   only: records a follower lacks</td></tr>
 *   <tr><td>{@code felix_replication_follower_lag_seconds{unit,shard,follower}}</td><td>gauge</td><td>leader
 *   only: how long the follower has been behind (0 when caught up)</td></tr>
 *   <tr><td>{@code felix_replication_quorum_timeouts_total}</td><td>counter</td><td>quorum batches refused
 *   with {@code quorum_timeout}</td></tr>
 *   <tr><td>{@code felix_replication_fetch_bytes_total{direction}}</td><td>counter</td><td>record bytes
 *   shipped to followers ({@code sent}) and received from leaders ({@code received})</td></tr>
 *   <tr><td>{@code felix_replication_truncations_total}</td><td>counter</td><td>replica logs cut back to
 *   their leader's</td></tr>
 * </table>
 * Gauges are refreshed by the replication ticker (every tick), so a scrape sees values at most one tick
 * old. Counters: any thread. Without a registry every method is a no-op.
 */
final class ReplicationMetrics {

    private final ClusterView view;
    private final Counter quorumTimeouts;
    private final Counter bytesSent;
    private final Counter bytesReceived;
    private final Counter truncations;
    private final MultiGauge role;
    private final MultiGauge epoch;
    private final MultiGauge logEnd;
    private final MultiGauge highWatermark;
    private final MultiGauge lagRecords;
    private final MultiGauge lagSeconds;
    /** When each (shard, follower) was last seen caught up, nanoTime. Ticker thread. */
    private final Map<String, Long> caughtUpAt = new HashMap<>();

    ReplicationMetrics(MeterRegistry registry, ClusterView view) {
        this.view = view;
        if (registry == null) {
            quorumTimeouts = bytesSent = bytesReceived = truncations = null;
            role = epoch = logEnd = highWatermark = lagRecords = lagSeconds = null;
            return;
        }
        quorumTimeouts = Counter.builder("felix.replication.quorum.timeouts")
                .description("quorum batches refused with quorum_timeout").register(registry);
        bytesSent = Counter.builder("felix.replication.fetch.bytes").tag("direction", "sent")
                .description("record bytes shipped to followers or received from leaders").register(registry);
        bytesReceived = Counter.builder("felix.replication.fetch.bytes").tag("direction", "received")
                .description("record bytes shipped to followers or received from leaders").register(registry);
        truncations = Counter.builder("felix.replication.truncations")
                .description("replica logs cut back to their leader's").register(registry);
        role = MultiGauge.builder("felix.replication.role").description("1 leader, 0 follower").register(registry);
        epoch = MultiGauge.builder("felix.replication.epoch").description("epoch of the last record here")
                .register(registry);
        logEnd = MultiGauge.builder("felix.replication.log.end").description("offset after the last record here")
                .register(registry);
        highWatermark = MultiGauge.builder("felix.replication.high.watermark")
                .description("offset below which readers see records").register(registry);
        lagRecords = MultiGauge.builder("felix.replication.follower.lag.records")
                .description("records a follower lacks").register(registry);
        lagSeconds = MultiGauge.builder("felix.replication.follower.lag.seconds")
                .description("how long a follower has been behind").baseUnit("seconds").register(registry);
    }

    void quorumTimeout() {
        if (quorumTimeouts != null) {
            quorumTimeouts.increment();
        }
    }

    void sent(long bytes) {
        if (bytesSent != null) {
            bytesSent.increment(bytes);
        }
    }

    void received(long bytes) {
        if (bytesReceived != null) {
            bytesReceived.increment(bytes);
        }
    }

    void truncated() {
        if (truncations != null) {
            truncations.increment();
        }
    }

    /** Replaces every gauge row with what {@code reports} and the led shards say now. Ticker thread. */
    void refresh(List<ReplicaReport> reports, Map<ShardKey, ReplicatedGate> leading, long nowNanos) {
        if (role == null) {
            return;
        }
        List<MultiGauge.Row<?>> roles = new ArrayList<>();
        List<MultiGauge.Row<?>> epochs = new ArrayList<>();
        List<MultiGauge.Row<?>> ends = new ArrayList<>();
        List<MultiGauge.Row<?>> hwms = new ArrayList<>();
        List<MultiGauge.Row<?>> lags = new ArrayList<>();
        List<MultiGauge.Row<?>> lagTimes = new ArrayList<>();
        Map<String, Long> seen = new HashMap<>();
        for (ReplicaReport r : reports) {
            ReplicatedGate gate = leading.get(r.key());
            Tags tags = tags(r.key());
            roles.add(MultiGauge.Row.of(tags, gate != null ? 1 : 0));
            epochs.add(MultiGauge.Row.of(tags, r.lastEpoch()));
            ends.add(MultiGauge.Row.of(tags, r.logEnd()));
            if (gate == null) {
                continue;
            }
            LeaderProgress progress = gate.progress();
            hwms.add(MultiGauge.Row.of(tags, progress.highWatermark()));
            for (Map.Entry<String, Long> f : progress.followerEnds().entrySet()) {
                long behind = Math.max(0, progress.logEnd() - f.getValue());
                String id = r.key() + "/" + f.getKey();
                long since = behind == 0 ? nowNanos : caughtUpAt.getOrDefault(id, nowNanos);
                seen.put(id, since);
                Tags followerTags = tags.and("follower", f.getKey());
                lags.add(MultiGauge.Row.of(followerTags, behind));
                lagTimes.add(MultiGauge.Row.of(followerTags, (nowNanos - since) / 1e9));
            }
        }
        caughtUpAt.clear();
        caughtUpAt.putAll(seen);
        role.register(roles, true);
        epoch.register(epochs, true);
        logEnd.register(ends, true);
        highWatermark.register(hwms, true);
        lagRecords.register(lags, true);
        lagSeconds.register(lagTimes, true);
    }

    private Tags tags(ShardKey key) {
        String unit = view.placement(key).map(ShardPlacement::name).orElse(key.toString());
        return Tags.of("unit", unit, "shard", Integer.toString(key.shard()));
    }
}
