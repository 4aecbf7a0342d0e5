package dev.felix.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Settings and names fail at construction with a message that names the setting. */
class ConfigValidationTest {

    @Test
    void coreConfig_catchUpAsTheEphemeralDefault_isRejected() {
        assertThatThrownBy(() -> CoreConfig.defaults().withSubscriberQueue(new QueueLimits(1, 1), QueuePolicy.CATCH_UP))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("catch_up");
    }

    @Test
    void coreConfig_badNumbers_nameTheSetting() {
        assertThatThrownBy(() -> CoreConfig.defaults().withShardThreads(-1)).hasMessageContaining("shard_threads");
        assertThatThrownBy(() -> CoreConfig.defaults().withRing(0, 1)).hasMessageContaining("ring_events");
        assertThatThrownBy(() -> new QueueLimits(0, 1)).hasMessageContaining("event limit");
        assertThatThrownBy(() -> new QueueLimits(1, 0)).hasMessageContaining("byte limit");
    }

    @Test
    void coreConfig_defaults_areEphemeralDropNewDurableCatchUp() {
        CoreConfig c = CoreConfig.defaults();
        assertThat(c.ephemeralPolicy()).isEqualTo(QueuePolicy.DROP_NEW);
        assertThat(c.durablePolicy()).isEqualTo(QueuePolicy.CATCH_UP);
        assertThat(c.autoCreate()).isTrue();
    }

    @ParameterizedTest
    @EnumSource(QueuePolicy.class)
    void queuePolicy_wireNameRoundTrips(QueuePolicy p) {
        assertThat(QueuePolicy.parse(p.wireName())).isEqualTo(p);
    }

    @Test
    void queuePolicy_unknownName_listsTheValidOnes() {
        assertThatThrownBy(() -> QueuePolicy.parse("drop-new")).hasMessageContaining("drop_new, drop_old");
    }

    @Test
    void streamConfig_shardsOutOfRange_andRetentionOnEphemeral_areRejected() {
        assertThatThrownBy(() -> StreamConfig.ephemeral(0)).hasMessageContaining("shards");
        assertThatThrownBy(() -> StreamConfig.ephemeral(StreamConfig.MAX_SHARDS + 1)).hasMessageContaining("shards");
        assertThatThrownBy(() -> new StreamConfig(1, false, null, 10, null)).hasMessageContaining("durable streams only");
        assertThatThrownBy(() -> new StreamConfig(1, true, null, 0, Duration.ZERO)).hasMessageContaining("retention_age");
        assertThat(new StreamConfig(1, true, null, 0, null).fsync()).isEqualTo(StreamConfig.Fsync.PERIODIC);
    }

    @ParameterizedTest
    @ValueSource(strings = {"a/b", "a/b/c/d", "/b/c", "a//c", "a/b/", "a b/c/d", "a/b/c?"})
    void streamName_malformed_isRejected(String text) {
        assertThatThrownBy(() -> StreamName.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void streamName_validParts_roundTrip() {
        assertThat(StreamName.parse("Acme-1/ns_2/s.3").toString()).isEqualTo("Acme-1/ns_2/s.3");
        assertThatThrownBy(() -> new StreamName("t", "x".repeat(StreamName.MAX_PART_LENGTH + 1), "s"))
                .hasMessageContaining("namespace");
    }

    @Test
    void startPosition_negativeOffset_isRejected() {
        assertThatThrownBy(() -> StartPosition.at(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
