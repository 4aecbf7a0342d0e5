package dev.felix.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.core.cache.CacheConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The builders of the core's config records ({@link CoreConfig}, {@link CoreConfig.Storage}, {@link StreamConfig},
 * {@link CacheConfig}): defaults equal the documented constants, every bad value is refused at the call with a
 * message naming the option and the value, cross-option rules fail in {@code build()}, and built values are equal
 * by value and unchanged by later use of their builder.
 */
class ConfigBuildersTest {

    @Test
    void coreConfig_defaults_equalTheDocumentedConstants() {
        CoreConfig c = CoreConfig.builder().build();
        assertThat(c.shardThreads()).isEqualTo(CoreConfig.DEFAULT_SHARD_THREADS).isZero();
        assertThat(c.ringEvents()).isEqualTo(CoreConfig.DEFAULT_RING_EVENTS).isEqualTo(65_536);
        assertThat(c.ringBytes()).isEqualTo(CoreConfig.DEFAULT_RING_BYTES).isEqualTo(64L << 20);
        assertThat(c.writerQueue()).isEqualTo(CoreConfig.DEFAULT_WRITER_QUEUE).isEqualTo(new QueueLimits(16_384, 32L << 20));
        assertThat(c.subscriberQueue()).isEqualTo(CoreConfig.DEFAULT_SUBSCRIBER_QUEUE)
                .isEqualTo(new QueueLimits(8_192, 16L << 20));
        assertThat(c.ephemeralPolicy()).isEqualTo(CoreConfig.DEFAULT_EPHEMERAL_POLICY).isEqualTo(QueuePolicy.DROP_NEW);
        assertThat(c.durablePolicy()).isEqualTo(CoreConfig.DEFAULT_DURABLE_POLICY).isEqualTo(QueuePolicy.CATCH_UP);
        assertThat(c.maxBatchEvents()).isEqualTo(CoreConfig.DEFAULT_MAX_BATCH_EVENTS).isEqualTo(256);
        assertThat(c.maxBatchBytes()).isEqualTo(CoreConfig.DEFAULT_MAX_BATCH_BYTES).isEqualTo(256L << 10);
        assertThat(c.autoCreate()).isEqualTo(CoreConfig.DEFAULT_AUTO_CREATE).isTrue();
        assertThat(c.openTenants()).isEqualTo(CoreConfig.DEFAULT_OPEN_TENANTS).isTrue();
        assertThat(c.inlineWriters()).isEqualTo(CoreConfig.DEFAULT_INLINE_WRITERS).isTrue();
        assertThat(c.storage()).isNull();
        assertThat(c).isEqualTo(CoreConfig.defaults());
    }

    @Test
    void coreConfig_badValues_areRefusedAtTheCall_namingTheOption() {
        refused(() -> CoreConfig.builder().shardThreads(-1), "shard_threads", "-1");
        refused(() -> CoreConfig.builder().ringEvents(0), "ring_events", "0");
        refused(() -> CoreConfig.builder().ringBytes(-5), "ring_bytes", "-5");
        refused(() -> CoreConfig.builder().writerQueue(null), "writer_queue", "null");
        refused(() -> CoreConfig.builder().subscriberQueue(null), "subscriber_queue", "null");
        refused(() -> CoreConfig.builder().ephemeralPolicy(QueuePolicy.CATCH_UP), "subscriber_queue_policy", "catch_up");
        refused(() -> CoreConfig.builder().ephemeralPolicy(null), "subscriber_queue_policy", "null");
        refused(() -> CoreConfig.builder().durablePolicy(null), "durable_policy", "null");
        refused(() -> CoreConfig.builder().maxBatchEvents(0), "max_batch_events", "0");
        refused(() -> CoreConfig.builder().maxBatchBytes(0), "max_batch_bytes", "0");
    }

    @Test
    void coreConfig_canonicalConstructor_appliesTheSameChecks() {
        assertThatThrownBy(() -> new CoreConfig(0, 1, 1, null, CoreConfig.DEFAULT_SUBSCRIBER_QUEUE, QueuePolicy.BLOCK,
                QueuePolicy.CATCH_UP, 1, 1, true, true, false, null)).hasMessageContaining("writer_queue");
    }

    @Test
    void coreConfig_toBuilder_roundTrips_andWithersChangeOneValue() {
        CoreConfig c = CoreConfig.builder().shardThreads(3).inlineWriters(true).ringEvents(10).ringBytes(20)
                .storage(CoreConfig.Storage.at(Path.of("d"))).build();
        assertThat(c.toBuilder().build()).isEqualTo(c).hasSameHashCodeAs(c);
        assertThat(c.withAutoCreate(false)).isEqualTo(c.toBuilder().autoCreate(false).build()).isNotEqualTo(c);
    }

    @Test
    void coreConfig_builtValue_isNotChangedByItsBuilder() {
        CoreConfig.Builder b = CoreConfig.builder().ringEvents(7);
        CoreConfig first = b.build();
        b.ringEvents(8);
        assertThat(first.ringEvents()).isEqualTo(7);
        assertThat(b.build().ringEvents()).isEqualTo(8);
    }

    @Test
    void storage_defaults_equalTheDocumentedConstants() {
        CoreConfig.Storage s = CoreConfig.Storage.builder(Path.of("data")).build();
        assertThat(s.dataDir()).isEqualTo(Path.of("data"));
        assertThat(s.segmentBytes()).isEqualTo(CoreConfig.Storage.DEFAULT_SEGMENT_BYTES).isEqualTo(256L << 20);
        assertThat(s.repairCorruptTail()).isEqualTo(CoreConfig.Storage.DEFAULT_REPAIR_CORRUPT_TAIL).isFalse();
        assertThat(s.flushThreads()).isEqualTo(CoreConfig.Storage.DEFAULT_FLUSH_THREADS).isEqualTo(4);
        assertThat(s.retentionCheck()).isEqualTo(CoreConfig.Storage.DEFAULT_RETENTION_CHECK)
                .isEqualTo(Duration.ofMinutes(1));
        assertThat(s).isEqualTo(CoreConfig.Storage.at(Path.of("data")));
        assertThat(s.toBuilder().flushThreads(2).build().flushThreads()).isEqualTo(2);
    }

    @Test
    void storage_badValues_areRefusedAtTheCall_namingTheOption() {
        refused(() -> CoreConfig.Storage.builder(null), "data_dir", "null");
        refused(() -> CoreConfig.Storage.builder(Path.of("d")).segmentBytes(100), "segment_bytes", "100");
        refused(() -> CoreConfig.Storage.builder(Path.of("d")).flushThreads(0), "storage_flush_threads", "0");
        refused(() -> CoreConfig.Storage.builder(Path.of("d")).flushThreads(257), "storage_flush_threads", "257");
        refused(() -> CoreConfig.Storage.builder(Path.of("d")).retentionCheck(Duration.ZERO), "retention_check", "PT0S");
    }

    @Test
    void streamConfig_defaults_equalTheDocumentedConstants() {
        StreamConfig c = StreamConfig.builder().build();
        assertThat(c.shards()).isEqualTo(StreamConfig.DEFAULT_SHARDS).isEqualTo(1);
        assertThat(c.durable()).isEqualTo(StreamConfig.DEFAULT_DURABLE).isFalse();
        assertThat(c.fsync()).isEqualTo(StreamConfig.DEFAULT_FSYNC).isEqualTo(StreamConfig.Fsync.PERIODIC);
        assertThat(c.retentionBytes()).isEqualTo(StreamConfig.DEFAULT_RETENTION_BYTES).isZero();
        assertThat(c.retentionAge()).isNull();
        assertThat(c.consistency()).isEqualTo(StreamConfig.DEFAULT_CONSISTENCY).isEqualTo(Consistency.LEADER);
        assertThat(c.replicas()).isEqualTo(StreamConfig.DEFAULT_REPLICAS).isZero();
        assertThat(c).isEqualTo(StreamConfig.ephemeral());
    }

    @Test
    void streamConfig_badValues_areRefusedAtTheCall_namingTheOption() {
        refused(() -> StreamConfig.builder().shards(0), "shards", "0");
        refused(() -> StreamConfig.builder().shards(StreamConfig.MAX_SHARDS + 1), "shards", "1025");
        refused(() -> StreamConfig.builder().retentionBytes(-1), "retention_bytes", "-1");
        refused(() -> StreamConfig.builder().retentionAge(Duration.ofSeconds(-1)), "retention_age", "PT-1S");
        refused(() -> StreamConfig.builder().replicas(8), "replicas", "8");
        refused(() -> StreamConfig.builder().replicas(-1), "replicas", "-1");
    }

    @Test
    void streamConfig_crossRules_failInBuild() {
        StreamConfig.Builder ephemeralWithRetention = StreamConfig.builder().retentionBytes(10);
        assertThatThrownBy(ephemeralWithRetention::build).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retention applies to durable streams only");
        StreamConfig.Builder ephemeralQuorum = StreamConfig.builder().consistency(Consistency.QUORUM);
        assertThatThrownBy(ephemeralQuorum::build).hasMessageContaining("consistency quorum needs a durable stream");
        StreamConfig.Builder ephemeralReplicas = StreamConfig.builder().replicas(3);
        assertThatThrownBy(ephemeralReplicas::build).hasMessageContaining("replicas applies to durable streams only");
        StreamConfig durable = StreamConfig.builder().durable(true).retentionBytes(10).consistency(Consistency.QUORUM)
                .replicas(3).build();
        assertThat(durable.replicas()).isEqualTo(3);
        StreamConfig.Builder durableNoReplay = StreamConfig.builder().durable(true).noReplay(true);
        assertThatThrownBy(durableNoReplay::build).hasMessageContaining("no_replay applies to ephemeral streams only");
        assertThat(StreamConfig.builder().noReplay(true).build().toBuilder().build().noReplay()).isTrue();
    }

    @Test
    void nullFsyncAndConsistency_meanTheDefault_asInTheCanonicalConstructors() {
        assertThat(StreamConfig.builder().durable(true).fsync(null).consistency(null).build())
                .isEqualTo(new StreamConfig(1, true, null, 0, null, null, 0))
                .extracting(StreamConfig::fsync, StreamConfig::consistency)
                .containsExactly(StreamConfig.DEFAULT_FSYNC, StreamConfig.DEFAULT_CONSISTENCY);
        assertThat(CacheConfig.builder().fsync(null).build().fsync()).isEqualTo(CacheConfig.DEFAULT_FSYNC);
    }

    @Test
    void streamConfig_toBuilder_roundTrips() {
        StreamConfig c = StreamConfig.builder().shards(4).durable(true).fsync(StreamConfig.Fsync.ON_COMMIT)
                .retentionAge(Duration.ofHours(1)).build();
        assertThat(c.toBuilder().build()).isEqualTo(c);
        assertThat(c.withReplication(Consistency.QUORUM, 3)).isEqualTo(
                c.toBuilder().consistency(Consistency.QUORUM).replicas(3).build());
        assertThat(StreamConfig.ephemeral(4)).isEqualTo(StreamConfig.builder().shards(4).build());
    }

    @Test
    void cacheConfig_defaults_equalTheDocumentedConstants() {
        CacheConfig c = CacheConfig.builder().build();
        assertThat(c.backing()).isEqualTo(CacheConfig.DEFAULT_BACKING).isEqualTo(CacheConfig.Backing.MEMORY);
        assertThat(c.defaultTtl()).isNull();
        assertThat(c.maxEntries()).isEqualTo(CacheConfig.DEFAULT_MAX_ENTRIES).isEqualTo(1_000_000);
        assertThat(c.changeRingEvents()).isEqualTo(CacheConfig.DEFAULT_CHANGE_RING_EVENTS).isEqualTo(65_536);
        assertThat(c.changeRingBytes()).isEqualTo(CacheConfig.DEFAULT_CHANGE_RING_BYTES).isEqualTo(64L << 20);
        assertThat(c.watcherQueue()).isEqualTo(CacheConfig.DEFAULT_WATCHER_QUEUE).isEqualTo(new QueueLimits(8_192, 16L << 20));
        assertThat(c.writerQueue()).isEqualTo(CacheConfig.DEFAULT_WRITER_QUEUE).isEqualTo(new QueueLimits(16_384, 64L << 20));
        assertThat(c.maxValueBytes()).isEqualTo(CacheConfig.DEFAULT_MAX_VALUE_BYTES).isEqualTo(1 << 20);
        assertThat(c.fsync()).isEqualTo(CacheConfig.DEFAULT_FSYNC).isEqualTo(StreamConfig.Fsync.PERIODIC);
        assertThat(c.snapshotEveryChanges()).isEqualTo(CacheConfig.DEFAULT_SNAPSHOT_EVERY_CHANGES).isEqualTo(100_000);
        assertThat(c.segmentBytes()).isEqualTo(CacheConfig.DEFAULT_SEGMENT_BYTES).isEqualTo(16L << 20);
        assertThat(c).isEqualTo(CacheConfig.defaults()).isEqualTo(CacheConfig.memory());
        assertThat(CacheConfig.log(StreamConfig.Fsync.ON_COMMIT)).isEqualTo(CacheConfig.builder()
                .backing(CacheConfig.Backing.LOG).fsync(StreamConfig.Fsync.ON_COMMIT).build());
    }

    @Test
    void cacheConfig_badValues_areRefusedAtTheCall_namingTheOption() {
        refused(() -> CacheConfig.builder().backing(null), "backing", "null");
        refused(() -> CacheConfig.builder().defaultTtl(Duration.ZERO), "default_ttl", "PT0S");
        refused(() -> CacheConfig.builder().defaultTtl(Duration.ofNanos(10)), "default_ttl", "PT0.00000001S");
        refused(() -> CacheConfig.builder().maxEntries(0), "max_entries", "0");
        refused(() -> CacheConfig.builder().changeRingEvents(0), "change_ring_events", "0");
        refused(() -> CacheConfig.builder().changeRingBytes(0), "change_ring_bytes", "0");
        refused(() -> CacheConfig.builder().watcherQueue(null), "watcher_queue", "null");
        refused(() -> CacheConfig.builder().writerQueue(null), "writer_queue", "null");
        refused(() -> CacheConfig.builder().maxValueBytes(-1), "max_value_bytes", "-1");
        refused(() -> CacheConfig.builder().maxValueBytes(CacheConfig.MAX_VALUE_LIMIT + 1), "max_value_bytes",
                String.valueOf(CacheConfig.MAX_VALUE_LIMIT + 1));
        refused(() -> CacheConfig.builder().snapshotEveryChanges(0), "snapshot_every_changes", "0");
        refused(() -> CacheConfig.builder().segmentBytes(4095), "segment_bytes", "4095");
    }

    @Test
    void cacheConfig_toBuilder_roundTrips_andWithersMatchTheBuilder() {
        CacheConfig c = CacheConfig.builder().backing(CacheConfig.Backing.LOG).defaultTtl(Duration.ofSeconds(5))
                .maxEntries(10).changeRingEvents(3).changeRingBytes(4).segmentBytes(8192).build();
        assertThat(c.toBuilder().build()).isEqualTo(c).hasSameHashCodeAs(c);
        assertThat(c.withMaxEntries(11)).isEqualTo(c.toBuilder().maxEntries(11).build());
        assertThat(c.withChangeRing(5, 6)).isEqualTo(c.toBuilder().changeRingEvents(5).changeRingBytes(6).build());
    }

    private static void refused(Supplier<?> call, String option, String value) {
        assertThatThrownBy(call::get).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(option).hasMessageContaining(value);
    }
}
